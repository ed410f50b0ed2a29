import { z } from "zod";

// One wording for absent fields everywhere; doors prefix the field name.
z.config({
  customError: (issue) => (issue.code === "invalid_type" && issue.input === undefined ? "is required" : undefined),
});
