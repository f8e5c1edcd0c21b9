// Runs a Python program under real Pyodide in Node, then each line read from standard input as
// Python code in the same interpreter (tests/test_lessons_in_pyodide*.py: one Pyodide runs lesson
// after lesson, each in a fresh shell, where starting Pyodide anew for each costs seconds):
//     node tests/pyodide/serve.mjs PACKAGES_DIR PROGRAM.py LOCATION_URL
// PACKAGES_DIR and LOCATION_URL: see load.mjs.  Once the program has run it prints "READY " and a JSON
// object: the seconds and processor seconds since Node started.  After each line it prints "DONE " and a JSON
// object: {"error": the Python error or null, "seconds": wall-clock time, "cpu_seconds": this
// process's processor time, its threads' included}.  Exits 1 if the program raises, or once
// Pyodide has had a fatal error.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { load } from "./load.mjs";

const [packages, program, location] = process.argv.slice(2);
const pyodide = await load(packages, location);
try {
  await pyodide.runPythonAsync(fs.readFileSync(program, "utf8"), { filename: path.basename(program) });
} catch (error) {
  console.error(String((error && error.message) || error));
  process.exit(1);
}
const used = process.cpuUsage();
const cpuSeconds = (used.user + used.system) / 1e6;
console.log("READY " + JSON.stringify({ seconds: performance.now() / 1000, cpu_seconds: cpuSeconds }));
for await (const line of readline.createInterface({ input: process.stdin })) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let error = null;
  try {
    await pyodide.runPythonAsync(line);
  } catch (raised) {
    error = String((raised && raised.message) || raised);
  }
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  console.log("DONE " + JSON.stringify({ error, seconds, cpu_seconds: (used.user + used.system) / 1e6 }));
  if (error !== null && error.includes("fatal")) {
    process.exit(1);  // "Pyodide has suffered a fatal error": it can run nothing more
  }
}
