import type { MetadataRoute } from "next";

/**
 * The web app manifest (issue 35): a ward's tablet installs the desk (`/kiosk`) as an app of its
 * own, full screen, that opens where the staff left it; a patient's phone may add a signing page
 * to its home screen. What keeps the patient pages working offline is the service worker
 * (public/sw.js), registered by the patient pages only.
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "ClinSign",
    short_name: "ClinSign",
    description: "Sign documents and fill in forms for your clinic.",
    id: "/kiosk",
    start_url: "/kiosk",
    scope: "/",
    display: "standalone",
    background_color: "#ffffff",
    theme_color: "#08556c",
    icons: [{ src: "/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" }],
  };
}
