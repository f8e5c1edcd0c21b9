// Runs a Python program under real Pyodide in Node (tests/test_pyodide.py):
//     node tests/pyodide/run.mjs PACKAGES_DIR PROGRAM.py LOCATION_URL
// PACKAGES_DIR is mounted at /packages and put first on sys.path: the pure-Python packages the
// program imports (the course's and those it needs). LOCATION_URL stands for the kernel
// worker's location.href in the browser, which the course resolves its URLs against.
// Prints what the program prints; exits 1 with the Python error if it raises.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const [packages, program, location] = process.argv.slice(2);
globalThis.location = { href: location };
const pyodide = await loadPyodide({ stdout: (line) => console.log(line), stderr: (line) => console.error(line) });
pyodide.FS.mkdir("/packages");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(packages) }, "/packages");
pyodide.runPython("import sys; sys.path.insert(0, '/packages')");
try {
  await pyodide.runPythonAsync(fs.readFileSync(program, "utf8"), { filename: path.basename(program) });
} catch (error) {
  console.error(String((error && error.message) || error));
  process.exit(1);
}
