// Starts the browser app's kernel in Node as its worker does, runs the lessons in it, and prints the
// modules it imported (browser_app/pyodide_bytecode.py --record runs it, and writes browser_app/kernel_modules.txt).
//     node browser_app/record_modules.mjs APP_DIR LESSONS_JSON
// APP_DIR: a built app.  Every wheel of its lock is loaded, not only those its kernel preloads, so that
// what a kernel needs is measured, not what the app's list of them said last time.  LESSONS_JSON maps
// each lesson to its code cells: they run one after the other, in one kernel; then a name is completed
// (Tab), its help shown (Shift+Tab) and a cell fails (a traceback), as in a learner's session.  Prints
// one JSON object: the modules imported from the app's wheels and standard library, and each cell
// that failed.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [app, lessonsFile] = process.argv.slice(2);
const pyodideDir = path.join(path.resolve(app), "static", "pyodide");
const settings = JSON.parse(fs.readFileSync(path.join(app, "jupyter-lite.json"), "utf8"))["jupyter-config-data"]
  .litePluginSettings["@jupyterlite/pyodide-kernel-extension:kernel"];
const lock = JSON.parse(fs.readFileSync(path.join(pyodideDir, "pyodide-lock.json"), "utf8"));
// The app's URLs are relative to its kernel worker's location.
const extension = path.join(path.resolve(app), "extensions", "@jupyterlite", "pyodide-kernel-extension");
globalThis.location = { href: pathToFileURL(path.join(extension, "static", "worker.js")).href };

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const quiet = () => {};
const pyodide = await loadPyodide({
  indexURL: pyodideDir + "/",
  stdout: quiet,
  stderr: quiet,
  ...settings.loadPyodideOptions,
  packages: Object.keys(lock.packages),
});
// The worker's start (jupyterlite-pyodide-kernel's initPackageManager and initKernel); its drive, where
// the lessons write my_micrograd.py, is a folder in memory here.
pyodide.FS.mkdirTree("/drive");
await pyodide.runPythonAsync(`
import piplite.piplite
piplite.piplite._PIPLITE_DISABLE_PYPI = True
import pyodide_kernel
import os
os.chdir("/drive")
`);
const kernel = pyodide.globals.get("pyodide_kernel").kernel_instance;
kernel.interpreter.send_comm = quiet;

const failed = [];
async function run(where, code) {
  const result = await kernel.run(code);
  if (result.get("status") !== "ok") {
    failed.push({ where, error: `${result.get("ename")}: ${result.get("evalue")}`.slice(0, 300) });
  }
}
const lessons = JSON.parse(fs.readFileSync(lessonsFile, "utf8"));
for (const [lesson, cells] of Object.entries(lessons)) {
  for (const [index, code] of cells.entries()) await run(`${lesson}, code cell ${index + 1}`, code);
}
const completing = "from micrograd import Value\\nValue(1.0).ba";
const completed = pyodide.runPython(`pyodide_kernel.kernel_instance.complete("${completing}", None)["matches"]`).toJs();
if (!completed.includes("backward")) {
  failed.push({ where: "completion", error: `Value(1.0).ba completed as ${JSON.stringify(completed)}` });
}
// Help on a name (Shift+Tab, or the completer's documentation): IPython's inspector highlights the source.
const found = pyodide.runPython(`pyodide_kernel.kernel_instance.inspect("Value.backward", 14, 1)["found"]`);
if (!found) failed.push({ where: "help", error: "Value.backward was not found" });
const before = failed.length;
await run("a failing cell", "1 / 0");
if (failed.length === before) failed.push({ where: "a failing cell", error: "1 / 0 did not fail" });
else failed.pop();

const modules = pyodide.runPython(`
import sys
places = tuple(entry + "/" for entry in sys.path if entry.endswith((".zip", "/site-packages")))
sorted(name for name, module in list(sys.modules.items())
       if (getattr(getattr(module, "__spec__", None), "origin", None) or "").startswith(places))
`).toJs();
console.log(JSON.stringify({ modules, failed }));
process.exit(0);
