export function childEnv(
  base: Record<string, string | undefined>,
  options: { apiOnly: boolean; root: string },
): Record<string, string | undefined>;
