// Fails when a package's source files import each other in a circle, runtime and type imports
// alike (`pnpm lint` runs it). A circle hides which module is the lower one, and a runtime circle
// hands one of its modules a half-initialised other; the fix is the lower module both depend on
// (docs/architecture.md, "Layers").
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const sourceRoots = ["apps/api/src", "apps/web/src", "packages/contracts/src", "packages/db/src", "packages/ui/src"];
const EXTENSIONS = [".ts", ".tsx", ".mts"];

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourceFiles(path);
    return EXTENSIONS.some((ext) => name.endsWith(ext)) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a relative specifier names: as written, with an extension, or a folder's index. */
function resolveRelative(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base,
    ...EXTENSIONS.map((ext) => base + ext),
    ...EXTENSIONS.map((ext) => base.replace(/\.m?js$/, ext)),
    ...EXTENSIONS.map((ext) => join(base, "index" + ext)),
  ];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (node) => {
    state.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!state.has(next)) {
        visit(next);
        state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
      } else if (state.get(next).onStack) state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
    }
    if (state.get(node).low === state.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        state.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

const graph = new Map();
for (const sourceRoot of sourceRoots) {
  for (const file of sourceFiles(join(root, sourceRoot))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveRelative(file, specifier))
      .filter(Boolean);
    graph.set(file, targets);
  }
}

const found = circles(graph);
for (const component of found)
  console.error(`import circle: ${component.map((file) => relative(root, file)).join(" ↔ ")}`);
if (found.length > 0) {
  console.error(`${found.length} import circle(s): move what the files share into a module both import.`);
  process.exit(1);
}
console.log(`import circles: none in ${graph.size} files`);
