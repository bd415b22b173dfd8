// The shapes of Python code that read configuration or mutate containers. Data, not logic:
// extend these lists rather than the extractor.

/** Dotted callees that read one environment variable named by their first argument. */
export const ENV_CALLS = new Set(['os.getenv', 'getenv', 'os.environ.get', 'environ.get', 'os.environ.setdefault', 'environ.setdefault', 'os.getenvb']);
/** Dotted mappings whose subscript is an environment variable. */
export const ENV_MAPPINGS = new Set(['os.environ', 'environ', 'os.environb']);
/** Names of objects that hold application settings: `settings.DEBUG`, `config["x"]`. */
export const SETTINGS_NAMES = new Set(['settings', 'config', 'conf', 'cfg', 'CONFIG', 'SETTINGS', 'app_config', 'configuration']);
/** File names whose literal mention in a call is a configuration read. */
export const CONFIG_FILE = /^[\w./\\-]+\.(ini|json|ya?ml|toml|cfg|conf|env)$/i;
/** Methods that change the container they are called on. */
export const MUTATORS = new Set([
  'append', 'extend', 'insert', 'remove', 'pop', 'clear', 'update', 'add', 'discard', 'setdefault', 'popitem',
  'sort', 'reverse', 'appendleft', 'extendleft', 'popleft', 'rotate', '__setitem__', '__delitem__',
]);
/** ALL_CAPS module constants (at least two characters). */
export const CONSTANT = /^_?[A-Z][A-Z0-9_]+$/;
