-- Talking to the attached NSCCN client: finding it, sending a custom request, turning
-- workspace-relative paths of the answers into file names. Errors become notifications.
local M = {}

M.CLIENT_NAME = 'nsccn'

local function notify_error(msg)
  vim.notify('nsccn: ' .. msg, vim.log.levels.ERROR)
end
M.notify_error = notify_error

--- The NSCCN client attached to `buf`, or any running one (search needs no particular buffer).
function M.client(buf)
  local attached = vim.lsp.get_clients({ name = M.CLIENT_NAME, bufnr = buf })
  if #attached > 0 then
    return attached[1]
  end
  local any = vim.lsp.get_clients({ name = M.CLIENT_NAME })
  return any[1]
end

--- Sends `method` with `params`; calls `on_result(result, client)` on success. The server's
--- error message (e.g. an unknown entity or a position outside any entity) is shown as is.
function M.request(buf, method, params, on_result)
  local client = M.client(buf)
  if not client then
    notify_error('the language server is not running (open a Python file first)')
    return
  end
  client.request(method, params, function(err, result)
    if err then
      notify_error(('%s failed: %s'):format(method, err.message or vim.inspect(err)))
      return
    end
    if result == nil or result == vim.NIL then
      notify_error(method .. ' returned nothing')
      return
    end
    on_result(result, client)
  end, buf)
end

--- Absolute file name of a workspace-relative path from an answer.
function M.absolute(client, rel)
  if rel == nil or rel == vim.NIL then
    return nil
  end
  local root = client.root_dir or (client.config and client.config.root_dir) or vim.fn.getcwd()
  return vim.fs.joinpath(root, rel)
end

return M
