/**
 * `clinsign/service-shape`: a tenant domain's exported function takes `(ctx, input)`. Its first
 * parameter may not be one of the handles the other wings work with: `Services`, `Db`, `Executor`,
 * `OrgScope` (credential lookups, jobs and sweeps across organizations), `PublicContext` (public
 * steps before an organization is known) or `IdentityStore` (the identity wing). A function that
 * needs only part of a context takes `Pick<OrgContext, …>`; a library dependency (a `FileStorage`,
 * a `Config`) is not a context and is allowed. docs/architecture.md, "Wings".
 */
const WING_HANDLES = new Set(["Services", "Db", "Executor", "OrgScope", "PublicContext", "IdentityStore"]);

/** The type names a parameter annotation mentions at its top level (`A`, `A | B`). */
function topLevelNames(annotation) {
  if (!annotation) return [];
  if (annotation.type === "TSUnionType") return annotation.types.flatMap(topLevelNames);
  if (annotation.type === "TSTypeReference" && annotation.typeName.type === "Identifier")
    return [annotation.typeName.name];
  return [];
}

function firstParameterType(fn) {
  const first = fn.params[0];
  if (!first) return undefined;
  const param = first.type === "AssignmentPattern" ? first.left : first;
  return param.typeAnnotation?.typeAnnotation;
}

export const serviceShape = {
  meta: {
    type: "problem",
    docs: { description: "Tenant domains take (ctx, input)" },
    messages: {
      shape:
        "A tenant domain's service takes (ctx: OrgContext, input), not a {{name}}: resolve credentials in core/credentials or core/public, cross-organization work in core/jobs.",
    },
    schema: [],
  },
  create(context) {
    function check(fn) {
      const name = topLevelNames(firstParameterType(fn)).find((n) => WING_HANDLES.has(n));
      if (name) context.report({ node: fn.params[0], messageId: "shape", data: { name } });
    }
    return {
      "ExportNamedDeclaration > FunctionDeclaration": check,
      "ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > ArrowFunctionExpression": check,
      "ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > FunctionExpression": check,
    };
  },
};

export default { rules: { "service-shape": serviceShape } };
