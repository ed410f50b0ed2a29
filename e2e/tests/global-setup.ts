import { API_URL } from "./support";

/**
 * The web server answers before the API has finished migrating and seeding (webServer only
 * waits for /login), so wait for the API's readiness too before the first test signs in.
 */
export default async function waitForApi(): Promise<void> {
  const deadline = Date.now() + 120_000;
  let last = "no answer";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${API_URL}/readyz`);
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the API at ${API_URL} did not become ready within 120 s (${last})`);
}
