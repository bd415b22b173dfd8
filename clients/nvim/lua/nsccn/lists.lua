-- :NsccnSearch, :NsccnTrace and :NsccnChanges — answers of nsccn/search, nsccn/trace and
-- nsccn/changes as quickfix / location list items, so :cnext / :lnext / <CR> work on them.
local rpc = require('nsccn.rpc')

local M = {}

-- Search ------------------------------------------------------------------------------------

local function search_items(client, results)
  local items = {}
  for _, r in ipairs(results) do
    local filename = (r.uri and r.uri ~= vim.NIL) and vim.uri_to_fname(r.uri) or rpc.absolute(client, r.file)
    local label = (r.signature and r.signature ~= '') and r.signature or r.name
    table.insert(items, {
      filename = filename,
      lnum = r.line,
      end_lnum = r.endLine,
      col = 1,
      text = ('[%s] %s'):format(r.kind, label),
      user_data = { id = r.id, score = r.score },
    })
  end
  return items
end

function M.search(buf, query, limit)
  if vim.trim(query) == '' then
    rpc.notify_error('give a search query')
    return
  end
  rpc.request(buf, 'nsccn/search', { query = query, limit = limit }, function(res, client)
    local items = search_items(client, res.results)
    vim.fn.setqflist({}, ' ', { title = 'NSCCN search: ' .. query, items = items })
    if #items == 0 then
      vim.notify('nsccn: no results for ' .. query, vim.log.levels.WARN)
    else
      vim.cmd('copen')
    end
  end)
end

-- Trace -------------------------------------------------------------------------------------

--- Where an edge is best looked at: callers (incoming edges) at their call site; resolved
--- targets at their definition; names the graph could not resolve at the site in the source.
local function edge_location(client, res, from, edge)
  local target = res.entities[edge.target]
  local source = res.entities[from]
  if edge.incoming and target then
    return rpc.absolute(client, target.file), edge.line or target.line
  end
  if edge.resolved and target and target.file ~= vim.NIL and target.line ~= vim.NIL then
    return rpc.absolute(client, target.file), target.line
  end
  if source then
    return rpc.absolute(client, source.file), edge.line or source.line
  end
  return nil, edge.line
end

local function edge_text(res, edge, level)
  local target = res.entities[edge.target]
  local arrow = edge.incoming and '<-' or '->'
  local flags = {}
  if not edge.resolved then
    table.insert(flags, 'unresolved')
  end
  if edge.ambiguous then
    table.insert(flags, 'ambiguous')
  end
  if edge.caught then
    table.insert(flags, 'caught')
  end
  local text = ('%s%s %s %s'):format(string.rep('  ', level), edge.relation, arrow, edge.target)
  if target and target.signature ~= '' then
    text = text .. '  ' .. target.signature
  end
  if #flags > 0 then
    text = text .. '  (' .. table.concat(flags, ', ') .. ')'
  end
  return text
end

--- The trace as a depth-first list: every edge once, nested edges indented under their node.
function M.trace_items(client, res)
  local items = {}
  local expanded = {}
  local function walk(id, level)
    if expanded[id] then
      return
    end
    expanded[id] = true
    for _, edge in ipairs(res.adjacency[id] or {}) do
      local filename, lnum = edge_location(client, res, id, edge)
      table.insert(items, {
        filename = filename,
        lnum = (lnum and lnum ~= vim.NIL) and lnum or 1,
        col = 1,
        text = edge_text(res, edge, level),
        user_data = { id = edge.target, relation = edge.relation },
      })
      walk(edge.target, level + 1)
    end
  end
  walk(res.root, 0)
  for _, name in ipairs(res.escaping or {}) do
    local root = res.entities[res.root]
    table.insert(items, {
      filename = root and rpc.absolute(client, root.file) or nil,
      lnum = root and root.line or 1,
      text = 'escapes: ' .. name,
    })
  end
  return items
end

--- Sends nsccn/trace with `params` and shows the answer in `win`'s location list.
function M.show_trace(win, params, title)
  local buf = vim.api.nvim_win_get_buf(win)
  rpc.request(buf, 'nsccn/trace', params, function(res, client)
    local items = M.trace_items(client, res)
    if not vim.api.nvim_win_is_valid(win) then
      return
    end
    vim.fn.setloclist(win, {}, ' ', { title = title(res), items = items })
    if #items == 0 then
      vim.notify(('nsccn: nothing %s of %s'):format(params.direction, res.root), vim.log.levels.WARN)
    else
      vim.api.nvim_win_call(win, function()
        vim.cmd('lopen')
      end)
    end
  end)
end

function M.trace(win, direction, depth)
  local buf = vim.api.nvim_win_get_buf(win)
  local client = rpc.client(buf)
  if not client then
    rpc.notify_error('the language server is not running (open a Python file first)')
    return
  end
  -- nsccn/trace names its entity by `uri` + `position` (not a textDocument object).
  local at = vim.lsp.util.make_position_params(win, client.offset_encoding)
  local params = { uri = at.textDocument.uri, position = at.position, direction = direction, depth = depth }
  M.show_trace(win, params, function(res)
    return ('NSCCN trace %s: %s'):format(direction, res.root)
  end)
end

-- Changes ------------------------------------------------------------------------------------

--- One quickfix item per entity a git diff touches, at its line, with its blast radius.
function M.changes_items(client, res)
  local items = {}
  for _, e in ipairs(res.entities) do
    local parts = { ('%s %s'):format(e.change, e.id) }
    if #e.callers > 0 then
      table.insert(parts, ('%s: %s'):format(e.change == 'deleted' and 'still named by' or 'callers', table.concat(e.callers, ', ')))
    end
    if #e.tests > 0 then
      table.insert(parts, 'tests: ' .. table.concat(e.tests, ', '))
    end
    table.insert(items, {
      filename = rpc.absolute(client, e.file),
      lnum = e.line,
      col = 1,
      text = table.concat(parts, '  '),
      user_data = { id = e.id, change = e.change },
    })
  end
  return items
end

--- :NsccnChanges [--staged | --worktree | REV]: nsccn/changes into the quickfix list.
function M.changes(buf, arg)
  local params = {}
  if arg == '--staged' then
    params.staged = true
  elseif arg == '--worktree' then
    params.worktree = true
  elseif arg ~= nil and arg ~= '' then
    params.since = arg
  end
  rpc.request(buf, 'nsccn/changes', params, function(res, client)
    local items = M.changes_items(client, res)
    vim.fn.setqflist({}, ' ', { title = 'NSCCN changes ' .. res.base, items = items })
    if #items == 0 then
      vim.notify('nsccn: no changed entities (' .. res.base .. ')', vim.log.levels.WARN)
    else
      vim.cmd('copen')
    end
  end)
end

return M
