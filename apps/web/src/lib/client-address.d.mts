export function clientAddress(
  forwardedFor: string | string[] | undefined,
  peer: string | undefined,
  trustProxy: boolean,
): string | undefined;
