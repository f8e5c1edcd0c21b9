// Compiles every .py under TREE to bytecode with the app's own Python: Pyodide's, in Node
// (browser_app/pyodide_bytecode.py runs it; the app's kernel then imports instead of compiling).
//     node browser_app/compile_bytecode.mjs PYODIDE_CORE_DIR TREE
// TREE/wheels/*: the sources to compile of each wheel (those of the modules a kernel imports); the
// bytecode goes to __pycache__, where an import looks.  TREE/stdlib: the standard library's, from its
// zip; the bytecode goes beside each .py, where zipimport looks.  Unchecked-hash pycs (PEP 552): a
// wheel's files get new times when Pyodide unpacks them, and the bytecode must be used all the same.
// Exits 1 if a file does not compile.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [core, tree] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(path.resolve(core), "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.resolve(core) + "/", stdout: console.log, stderr: console.error });
pyodide.FS.mkdir("/tree");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(tree) }, "/tree");
const compiled = pyodide.runPython(`
import compileall, os, py_compile, sys, sysconfig, warnings
warnings.simplefilter("ignore", SyntaxWarning)  # a package's own warnings, about its tests' strings
mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
# ddir: each code object names the file where the app will find it, not this tree's copy;
# zipimport keeps that name as it is, and tracebacks, warnings and inspect go by it.
site_packages = sysconfig.get_paths()["purelib"]
stdlib_zip = next(entry for entry in sys.path if entry.endswith(".zip"))
ok = all([compileall.compile_dir(f"/tree/wheels/{wheel}", quiet=1, ddir=site_packages, invalidation_mode=mode)
          for wheel in sorted(os.listdir("/tree/wheels"))])
ok = compileall.compile_dir("/tree/stdlib", quiet=1, ddir=stdlib_zip, legacy=True, invalidation_mode=mode) and ok
ok
`);
process.exit(compiled ? 0 : 1);
