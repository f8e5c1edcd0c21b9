// Pyodide from node_modules (the version package.json pins), as the tests run it in Node.
// PACKAGES_DIR is mounted at /packages and put first on sys.path: the pure-Python packages a
// program imports (the course's and those it needs). LOCATION_URL stands for the kernel
// worker's location.href in the browser, which the course resolves its URLs against.
import { loadPyodide } from "pyodide";
import path from "node:path";

export async function load(packages, location) {
  globalThis.location = { href: location };
  const pyodide = await loadPyodide({ stdout: (line) => console.log(line), stderr: (line) => console.error(line) });
  pyodide.FS.mkdir("/packages");
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(packages) }, "/packages");
  pyodide.runPython("import sys; sys.path.insert(0, '/packages')");
  return pyodide;
}
