;;; mai.el --- submit saved Python files to the Mai agent  -*- lexical-binding: t -*-
;; Load with (load "/path/to/mai.el").

(defun mai-submit-buffer ()
  "Submit the current .py file with `mai-agent submit' and show the outcome."
  (when (and buffer-file-name (string-suffix-p ".py" buffer-file-name))
    (let ((out (with-temp-buffer
                 (call-process "mai-agent" nil t nil "submit" "--timeout" "60"
                               buffer-file-name)
                 (string-trim (buffer-string)))))
      (message "mai-agent: %s" out))))

(add-hook 'after-save-hook #'mai-submit-buffer)
(provide 'mai)
