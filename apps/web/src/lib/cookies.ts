/** The API's HTTP-only staff session cookie (set by auth.login through the /trpc proxy). */
export const STAFF_SESSION_COOKIE = "clinsign_session";
