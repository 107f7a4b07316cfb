" Mai agent: submit every saved .py file and show the outcome.
" Load with ':source mai.vim' or copy into ~/.vim/plugin/.
augroup mai_agent
  autocmd!
  autocmd BufWritePost *.py call s:MaiSubmit(expand('<afile>:p'))
augroup END

function! s:MaiSubmit(path) abort
  let l:out = system('mai-agent submit --timeout 60 ' . shellescape(a:path))
  echomsg 'mai-agent: ' . substitute(l:out, '\n\+$', '', '')
endfunction
