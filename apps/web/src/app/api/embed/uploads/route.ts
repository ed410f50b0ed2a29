import { forwardToApi } from "../../../../lib/api-proxy";

/** Uploads from the patient form pages, passed on to the API's `POST /api/embed/uploads`. */

export const dynamic = "force-dynamic";

export { forwardToApi as POST };
