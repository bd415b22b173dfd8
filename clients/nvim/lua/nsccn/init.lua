-- NSCCN for Neovim: starts the language server for Python buffers with vim.lsp.start and adds
-- the zoom-in commands on top of its custom requests (protocol/index.ts):
--   :NsccnSkeleton            nsccn/skeleton of the current file in a scratch split
--   :NsccnSearch {query}      nsccn/search into the quickfix list
--   :NsccnTrace [direction]   nsccn/trace from the cursor into the location list
--   :NsccnChanges [--staged | --worktree | REV]   nsccn/changes into the quickfix list
-- and turns on code lenses ("N callers · M callees"; running one lists the callers).
-- The configuration lives in the closures `setup` creates, not in module state, so calling
-- setup again simply replaces the previous one.
local rpc = require('nsccn.rpc')
local skeleton = require('nsccn.skeleton')
local lists = require('nsccn.lists')
local lens = require('nsccn.lens')

local M = {}

M.defaults = {
  -- The server command; `nsccn` must be on PATH, or give an absolute path / node + script.
  cmd = { 'nsccn', 'lsp', '--stdio' },
  filetypes = { 'python' },
  -- The root is the nearest directory holding one of these, else the current directory.
  root_markers = { '.git', 'pyproject.toml', 'setup.py' },
  -- Passed to the server as initializationOptions (see the server's settings).
  init_options = nil,
  -- Results asked of nsccn/search.
  search_limit = 50,
  -- Levels nsccn/trace follows (the server caps it at 10).
  trace_depth = 3,
  -- Code lenses on NSCCN buffers, and a normal-mode key that runs the lens of the line (nil: none).
  codelens = true,
  codelens_keymap = nil,
}

local DIRECTIONS = { 'up', 'down', 'state', 'errors', 'config' }

local function root_for(buf, markers)
  local found = vim.fs.root(buf, markers)
  return found or vim.fn.getcwd()
end

--- Starts (or reuses) the server for `buf`; returns the client id, nil when the buffer has no file.
local function start(buf, config)
  if vim.bo[buf].buftype ~= '' or vim.api.nvim_buf_get_name(buf) == '' then
    return nil
  end
  return vim.lsp.start({
    name = rpc.CLIENT_NAME,
    cmd = config.cmd,
    root_dir = root_for(buf, config.root_markers),
    init_options = config.init_options,
  }, { bufnr = buf })
end

local function complete_direction(arg_lead)
  return vim.tbl_filter(function(d)
    return vim.startswith(d, arg_lead)
  end, DIRECTIONS)
end

local function define_commands(config)
  vim.api.nvim_create_user_command('NsccnSkeleton', function()
    skeleton.open(vim.api.nvim_get_current_buf())
  end, { desc = 'NSCCN: skeleton of the current file' })

  vim.api.nvim_create_user_command('NsccnSearch', function(opts)
    lists.search(vim.api.nvim_get_current_buf(), opts.args, config.search_limit)
  end, { nargs = '+', desc = 'NSCCN: hybrid search into the quickfix list' })

  vim.api.nvim_create_user_command('NsccnTrace', function(opts)
    local direction = opts.args ~= '' and opts.args or 'down'
    if not vim.tbl_contains(DIRECTIONS, direction) then
      vim.notify(
        ('nsccn: unknown direction %q (one of %s)'):format(direction, table.concat(DIRECTIONS, ', ')),
        vim.log.levels.ERROR
      )
      return
    end
    lists.trace(vim.api.nvim_get_current_win(), direction, config.trace_depth)
  end, { nargs = '?', complete = complete_direction, desc = 'NSCCN: trace from the cursor into the location list' })

  vim.api.nvim_create_user_command('NsccnChanges', function(opts)
    lists.changes(vim.api.nvim_get_current_buf(), opts.args)
  end, { nargs = '?', desc = 'NSCCN: entities a git diff touches (--staged, --worktree or a revision) into the quickfix list' })
end

--- Configures the plugin; safe to call more than once (the last call wins).
function M.setup(opts)
  local config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  if type(config.cmd) ~= 'table' or #config.cmd == 0 then
    error('nsccn.setup: `cmd` must be a non-empty list, e.g. { "nsccn", "lsp", "--stdio" }')
  end
  local group = vim.api.nvim_create_augroup('nsccn', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(ev)
      start(ev.buf, config)
    end,
  })
  define_commands(config)
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if config.codelens and client and client.name == rpc.CLIENT_NAME then
        lens.attach(ev.buf, vim.api.nvim_create_augroup('nsccn_lens_' .. ev.buf, { clear = true }), config.codelens_keymap)
      end
    end,
  })
  -- Buffers already open when setup runs (e.g. setup called late from a config file).
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(config.filetypes, vim.bo[buf].filetype) then
      start(buf, config)
    end
  end
end

return M
