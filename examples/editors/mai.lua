-- Mai agent for neovim: submit every saved .py file and show the outcome.
-- Load with ':luafile mai.lua' or require it from init.lua.
vim.api.nvim_create_autocmd("BufWritePost", {
  group = vim.api.nvim_create_augroup("mai_agent", { clear = true }),
  pattern = "*.py",
  callback = function(args)
    local path = vim.api.nvim_buf_get_name(args.buf)
    local out = vim.fn.system({ "mai-agent", "submit", "--timeout", "60", path })
    vim.notify("mai-agent: " .. vim.trim(out))
  end,
})
