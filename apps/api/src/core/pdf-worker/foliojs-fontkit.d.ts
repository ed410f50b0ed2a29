/** @foliojs-fork/fontkit ships no types; it is the fontkit API pdf-lib's own typings describe. */
declare module "@foliojs-fork/fontkit" {
  import type { Fontkit } from "pdf-lib/cjs/types/fontkit";
  const fontkit: Fontkit;
  export default fontkit;
}
