import { runCli } from "./cli/run";
import { ConfigError } from "./env";

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr })
  .then((code) => process.exit(code))
  .catch((error) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  });
