// What Python itself binds, and how files map to dotted module names.

export const BUILTINS: ReadonlySet<string> = new Set(
  (
    'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex ' +
    'copyright credits delattr dict dir divmod enumerate eval exec exit filter float format frozenset getattr ' +
    'globals hasattr hash help hex id input int isinstance issubclass iter len license list locals map max ' +
    'memoryview min next object oct open ord pow print property quit range repr reversed round set setattr ' +
    'slice sorted staticmethod str sum super tuple type vars zip __import__ __build_class__ NotImplemented Ellipsis ' +
    '__name__ __file__ __doc__ __spec__ __loader__ __package__ __builtins__ __debug__'
  ).split(' '),
);

/** Builtin exception → its builtin base: enough to tell whether `except X` catches a builtin. */
export const EXCEPTION_BASES: Readonly<Record<string, string>> = {
  Exception: 'BaseException',
  SystemExit: 'BaseException',
  KeyboardInterrupt: 'BaseException',
  GeneratorExit: 'BaseException',
  BaseExceptionGroup: 'BaseException',
  ExceptionGroup: 'Exception',
  ArithmeticError: 'Exception',
  FloatingPointError: 'ArithmeticError',
  OverflowError: 'ArithmeticError',
  ZeroDivisionError: 'ArithmeticError',
  AssertionError: 'Exception',
  AttributeError: 'Exception',
  BufferError: 'Exception',
  EOFError: 'Exception',
  ImportError: 'Exception',
  ModuleNotFoundError: 'ImportError',
  LookupError: 'Exception',
  IndexError: 'LookupError',
  KeyError: 'LookupError',
  MemoryError: 'Exception',
  NameError: 'Exception',
  UnboundLocalError: 'NameError',
  OSError: 'Exception',
  EnvironmentError: 'Exception',
  IOError: 'Exception',
  BlockingIOError: 'OSError',
  ChildProcessError: 'OSError',
  ConnectionError: 'OSError',
  BrokenPipeError: 'ConnectionError',
  ConnectionAbortedError: 'ConnectionError',
  ConnectionRefusedError: 'ConnectionError',
  ConnectionResetError: 'ConnectionError',
  FileExistsError: 'OSError',
  FileNotFoundError: 'OSError',
  InterruptedError: 'OSError',
  IsADirectoryError: 'OSError',
  NotADirectoryError: 'OSError',
  PermissionError: 'OSError',
  ProcessLookupError: 'OSError',
  TimeoutError: 'OSError',
  ReferenceError: 'Exception',
  RuntimeError: 'Exception',
  NotImplementedError: 'RuntimeError',
  RecursionError: 'RuntimeError',
  StopAsyncIteration: 'Exception',
  StopIteration: 'Exception',
  SyntaxError: 'Exception',
  IndentationError: 'SyntaxError',
  TabError: 'IndentationError',
  SystemError: 'Exception',
  TypeError: 'Exception',
  ValueError: 'Exception',
  UnicodeError: 'ValueError',
  UnicodeDecodeError: 'UnicodeError',
  UnicodeEncodeError: 'UnicodeError',
  UnicodeTranslateError: 'UnicodeError',
  Warning: 'Exception',
};

for (const name of Object.keys(EXCEPTION_BASES)) (BUILTINS as Set<string>).add(name);
(BUILTINS as Set<string>).add('BaseException');

const SOURCE_EXT = /\.pyi?$/;

/** `shop/models.py` → `shop.models`; `shop/__init__.py` → `shop`; null when not a Python file. */
export function moduleName(file: string): string | null {
  if (!SOURCE_EXT.test(file)) return null;
  const parts = file.replace(SOURCE_EXT, '').split('/');
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts.length ? parts.join('.') : null;
}

/**
 * Absolute module of an import as written in `fromFile`: `..models` in `shop/api/views.py` →
 * `shop.models`; absolute names are returned unchanged; null if it climbs above the root.
 */
export function absoluteModule(module: string, fromFile: string): string | null {
  if (!module.startsWith('.')) return module;
  let dots = 0;
  while (module[dots] === '.') dots++;
  const pkg = fromFile.split('/').slice(0, -1);
  if (dots - 1 > pkg.length) return null;
  const base = pkg.slice(0, pkg.length - (dots - 1));
  const rest = module.slice(dots);
  const all = rest ? [...base, ...rest.split('.')] : base;
  return all.length ? all.join('.') : null;
}

/** `except BaseException` catches everything; `except Exception` all but the exit signals. */
export function handlerCatches(handler: string, names: ReadonlySet<string>): boolean | undefined {
  if (handler === 'BaseException') return true;
  if (handler === 'Exception') return !['KeyboardInterrupt', 'SystemExit', 'GeneratorExit'].some((n) => names.has(n));
  return undefined;
}

const GETTERS = /^(property|(\w+\.)*cached_property|abc\.abstractproperty|\w+\.getter)$/;

/** `@overload`, `@typing.overload`, `@typing_extensions.overload`: a stub for the type checker. */
export function isOverloadStub(decorators: readonly string[]): boolean {
  return decorators.some((d) => /^(\w+\.)*overload$/.test(d));
}

/** `@property`, `@cached_property`, `@x.getter`: reading the attribute runs the method. */
export function isPropertyGetter(decorators: readonly string[]): boolean {
  return decorators.some((d) => GETTERS.test(d));
}

/**
 * Where pytest finds the fixtures a test's parameters name, besides the test's own module:
 * `conftest.py` in the test's folder and in each folder above it, nearest first.
 */
export function fixtureScopes(file: string): string[] {
  const out: string[] = [];
  let dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
  for (;;) {
    out.push(dir ? `${dir}/conftest.py` : 'conftest.py');
    if (!dir) return out;
    dir = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
  }
}
