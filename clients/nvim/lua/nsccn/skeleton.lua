-- :NsccnSkeleton — the file's skeleton (signatures and docstrings, bodies elided) in a scratch
-- split. <CR> on a line jumps to the source line of the entity that line belongs to, using the
-- skeletonLine → sourceLine pairs of the answer.
local rpc = require('nsccn.rpc')

local M = {}

--- The entity a skeleton line belongs to: the last one starting at or before it.
local function entity_at(entities, line)
  local best = nil
  for _, e in ipairs(entities) do
    if e.skeletonLine <= line and (best == nil or e.skeletonLine >= best.skeletonLine) then
      best = e
    end
  end
  return best
end

--- A window showing `src_buf`, preferring the one the command was run from.
local function source_window(src_buf, src_win)
  if vim.api.nvim_win_is_valid(src_win) and vim.api.nvim_win_get_buf(src_win) == src_buf then
    return src_win
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == src_buf then
      return win
    end
  end
  return nil
end

local function jump(src_buf, src_win, entities)
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local entity = entity_at(entities, line)
  if not entity then
    rpc.notify_error('no entity on this line')
    return
  end
  if not vim.api.nvim_buf_is_valid(src_buf) then
    rpc.notify_error('the source buffer is gone')
    return
  end
  local win = source_window(src_buf, src_win)
  if win then
    vim.api.nvim_set_current_win(win)
  else
    -- The source is no longer visible: show it above the skeleton.
    vim.cmd('aboveleft split')
    vim.api.nvim_win_set_buf(0, src_buf)
  end
  local last = vim.api.nvim_buf_line_count(src_buf)
  vim.api.nvim_win_set_cursor(0, { math.min(entity.sourceLine, last), 0 })
  vim.cmd('normal! ^zz')
end

local function show(src_buf, src_win, res)
  local name = 'nsccn://skeleton/' .. res.file
  local old = vim.fn.bufnr(name)
  if old ~= -1 then
    vim.api.nvim_buf_delete(old, { force = true })
  end
  local lines = vim.split(res.text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end

  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  -- Highlight without setting 'filetype', which would start Python language servers on it.
  if not pcall(vim.treesitter.start, buf, 'python') then
    vim.bo[buf].syntax = 'python'
  end
  -- The answer, for scripts and statuslines: entities and token counts.
  vim.b[buf].nsccn_skeleton = {
    file = res.file,
    entities = res.entities,
    originalTokens = res.originalTokens,
    skeletonTokens = res.skeletonTokens,
  }

  if vim.api.nvim_win_is_valid(src_win) then
    vim.api.nvim_set_current_win(src_win)
  end
  vim.cmd('belowright split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.keymap.set('n', '<CR>', function()
    jump(src_buf, src_win, res.entities)
  end, { buffer = buf, desc = 'NSCCN: go to this entity in the source' })
  vim.keymap.set('n', 'q', '<cmd>close<CR>', { buffer = buf, desc = 'NSCCN: close the skeleton' })
end

function M.open(src_buf)
  local src_win = vim.api.nvim_get_current_win()
  rpc.request(src_buf, 'nsccn/skeleton', { uri = vim.uri_from_bufnr(src_buf) }, function(res)
    show(src_buf, src_win, res)
  end)
end

return M
