-- Code lenses ("2 callers · 1 callee" above each function, method and class): turned on for
-- NSCCN buffers, refreshed when the buffer is entered, left or written (the server also asks for
-- a refresh after the graph changes), and clickable: the lens runs `nsccn.showCallers`, which
-- puts the callers in the window's location list. Run the lens on the cursor line with
-- vim.lsp.codelens.run() (mapped to `keymap` by setup when set).
local lists = require('nsccn.lists')
local rpc = require('nsccn.rpc')

local M = {}

M.COMMAND = 'nsccn.showCallers'

--- The client-side command of the lens (protocol Commands.showCallers; args {id, uri}).
function M.show_callers(command)
  local args = (command.arguments or {})[1]
  if type(args) ~= 'table' or type(args.id) ~= 'string' then
    rpc.notify_error(M.COMMAND .. ': the lens names no entity')
    return
  end
  lists.show_trace(vim.api.nvim_get_current_win(), { id = args.id, direction = 'up', depth = 1 }, function(res)
    return 'NSCCN callers: ' .. res.root
  end)
end

function M.attach(buf, group, keymap)
  vim.lsp.commands[M.COMMAND] = M.show_callers
  local function refresh()
    if vim.api.nvim_buf_is_valid(buf) then
      vim.lsp.codelens.refresh({ bufnr = buf })
    end
  end
  refresh()
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, { group = group, buffer = buf, callback = refresh })
  if keymap then
    vim.keymap.set('n', keymap, vim.lsp.codelens.run, { buffer = buf, desc = 'NSCCN: run the code lens of this line' })
  end
end

return M
