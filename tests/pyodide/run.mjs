// Runs a Python program under real Pyodide in Node (tests/test_pyodide.py):
//     node tests/pyodide/run.mjs PACKAGES_DIR PROGRAM.py LOCATION_URL
// PACKAGES_DIR and LOCATION_URL: see load.mjs.
// Prints what the program prints; exits 1 with the Python error if it raises.
import fs from "node:fs";
import path from "node:path";
import { load } from "./load.mjs";

const [packages, program, location] = process.argv.slice(2);
const pyodide = await load(packages, location);
try {
  await pyodide.runPythonAsync(fs.readFileSync(program, "utf8"), { filename: path.basename(program) });
} catch (error) {
  console.error(String((error && error.message) || error));
  process.exit(1);
}
