;;; mai.el --- submit saved Python files to the Mai agent  -*- lexical-binding: t -*-
;; Load with (load "/path/to/mai.el").

(defun mai-submit-buffer ()
  "Submit the current .py file with `mai-agent submit' and show the outcome."
  (when (and buffer-file-name (string-suffix-p ".py" buffer-file-name))
    ;; Bind the name first: inside the temp buffer buffer-file-name is nil.
    (let* ((file buffer-file-name)
           (out (with-temp-buffer
                 (call-process "mai-agent" nil t nil "submit" "--timeout" "60"
                               file)
                 (string-trim (buffer-string)))))
      (message "mai-agent: %s" out))))

(add-hook 'after-save-hook #'mai-submit-buffer)
(provide 'mai)
