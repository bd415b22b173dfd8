;;; nsccn.el --- NSCCN code navigator on top of Eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "30.1") (eglot "1.17") (jsonrpc "1.0.24"))
;; Keywords: languages, tools

;;; Commentary:

;; Runs the NSCCN language server through Eglot for Python buffers and adds the zoom-in
;; commands on top of its custom requests (protocol/index.ts in the NSCCN sources):
;;
;;   M-x nsccn-skeleton   nsccn/skeleton of the current file; RET jumps to the source line
;;   M-x nsccn-search     nsccn/search, results as an xref list
;;   M-x nsccn-trace      nsccn/trace from point (up/down/state/errors/config), as an xref list
;;   M-x nsccn-callers    the callers of the entity at point, as an xref list (what the code
;;                        lens "N callers" runs in editors that show lenses; Eglot does not)
;;   M-x nsccn-window     nsccn/window: the source of the entity at point, with line numbers
;;   M-x nsccn-changes    nsccn/changes: entities a git diff touches, with their callers and
;;                        tests, as an xref list (C-u asks for a revision, --staged or --worktree)
;;
;; Setup:
;;
;;   (add-to-list 'load-path "/path/to/nsccn/clients/emacs")
;;   (require 'nsccn)
;;   (nsccn-eglot-setup)                        ; registers the server for python(-ts)-mode
;;   (add-hook 'python-base-mode-hook #'eglot-ensure)   ; or M-x eglot in a Python buffer
;;
;; Eglot manages a buffer with one server, so after `nsccn-eglot-setup' NSCCN is the Eglot
;; server of Python buffers (it comes first in `eglot-server-programs').  To keep another
;; Python server as the Eglot server instead, skip `nsccn-eglot-setup' and put a language
;; server multiplexer that speaks for both in `eglot-server-programs'; the commands below
;; work on whatever Eglot server answers the nsccn/* requests.
;;
;; The project root is the one project.el finds (the VC root, or a directory holding one of
;; `project-vc-extra-root-markers', e.g. "pyproject.toml"); the index lives in <root>/.nsccn.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'project)
(require 'xref)

(defgroup nsccn nil
  "NSCCN code navigator."
  :group 'tools
  :prefix "nsccn-")

(defcustom nsccn-server-command '("nsccn" "lsp" "--stdio")
  "Command that starts the NSCCN language server, as a list of strings.
For a source checkout:
  (\"node\" \"/path/to/dist/server/src/cli/main.js\" \"lsp\" \"--stdio\")."
  :type '(repeat string))

(defcustom nsccn-major-modes '(python-mode python-ts-mode)
  "Major modes whose buffers NSCCN serves."
  :type '(repeat symbol))

(defcustom nsccn-search-limit 50
  "Number of results asked of nsccn/search."
  :type 'natnum)

(defcustom nsccn-trace-depth 3
  "Levels nsccn/trace follows (the server caps it at 10)."
  :type 'natnum)

(defconst nsccn-trace-directions '("up" "down" "state" "errors" "config")
  "Directions of nsccn/trace.")

;;;; Eglot registration

(defclass nsccn-eglot-server (eglot-lsp-server) ()
  :documentation "An Eglot connection to the NSCCN language server.")

(defun nsccn--eglot-contact (&optional _interactive)
  "Eglot contact of the NSCCN server.
Read from `nsccn-server-command' at connection time."
  (unless (and (consp nsccn-server-command) (cl-every #'stringp nsccn-server-command))
    (user-error "NSCCN: `nsccn-server-command' must be a list of strings, not %S"
                nsccn-server-command))
  (cons 'nsccn-eglot-server nsccn-server-command))

;;;###autoload
(defun nsccn-eglot-setup ()
  "Make NSCCN the Eglot server of `nsccn-major-modes' buffers.
Safe to call more than once."
  (interactive)
  (setq eglot-server-programs
        (cons (cons nsccn-major-modes #'nsccn--eglot-contact)
              (cl-remove #'nsccn--eglot-contact eglot-server-programs :key #'cdr))))

;;;; Talking to the server

(defvar-local nsccn--server nil
  "The Eglot server an NSCCN result buffer came from.")

(defun nsccn--current-server ()
  "The server for nsccn/* requests from the current buffer, or a clear error."
  (or (and nsccn--server (jsonrpc-running-p nsccn--server) nsccn--server)
      (eglot-current-server)
      (user-error "NSCCN: no language server for this buffer (start it with M-x eglot)")))

(defun nsccn--request (server method params)
  "Send METHOD with PARAMS to SERVER and return the result.
A JSON-RPC error becomes a `user-error' with the server's message."
  (condition-case err
      (jsonrpc-request server method params)
    (jsonrpc-error
     (user-error "NSCCN: %s failed: %s" method
                 (or (alist-get 'jsonrpc-error-message (cdr err)) (cadr err))))))

(defun nsccn--root (server)
  "Absolute workspace root of SERVER (the first workspace folder Eglot announced)."
  (let ((folders (eglot-workspace-folders server)))
    (file-name-as-directory (eglot-uri-to-path (plist-get (aref folders 0) :uri)))))

(defun nsccn--absolute (server file)
  "Absolute name of the workspace-relative FILE of an answer from SERVER, or nil."
  (and (stringp file) (expand-file-name file (nsccn--root server))))

(defun nsccn--buffer-uri ()
  "URI of the current buffer's file."
  (unless buffer-file-name (user-error "NSCCN: this buffer has no file"))
  (eglot-path-to-uri buffer-file-name))

(defun nsccn--position ()
  "The LSP position of point, in the encoding Eglot agreed with the server."
  (save-excursion
    (list :line (1- (line-number-at-pos (point) t))
          :character (funcall eglot-current-linepos-function))))

;;;; Skeleton

(defvar-local nsccn--skeleton-entities nil
  "Vector of the skeleton's entities (plists with :skeletonLine and :sourceLine).")

(defvar-local nsccn--skeleton-source nil
  "Absolute file name of the file a skeleton buffer shows.")

(defvar-keymap nsccn-skeleton-mode-map
  :parent special-mode-map
  "RET" #'nsccn-skeleton-goto)

(define-derived-mode nsccn-skeleton-mode special-mode "NSCCN-Skeleton"
  "Skeleton of a file: signatures and docstrings, bodies elided.
\\<nsccn-skeleton-mode-map>\\[nsccn-skeleton-goto] jumps to the entity of the line in the source.")

;;;###autoload
(defun nsccn-skeleton ()
  "Show the skeleton of the current file (nsccn/skeleton) in another window."
  (interactive)
  (let* ((server (nsccn--current-server))
         (source buffer-file-name)
         (res (nsccn--request server :nsccn/skeleton (list :uri (nsccn--buffer-uri))))
         (buf (get-buffer-create (format "*nsccn-skeleton: %s*" (plist-get res :file)))))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (plist-get res :text))
        (goto-char (point-min)))
      (nsccn-skeleton-mode)
      (setq nsccn--server server
            nsccn--skeleton-source source
            nsccn--skeleton-entities (plist-get res :entities)))
    (pop-to-buffer buf)
    buf))

(defun nsccn--skeleton-entity-at (line)
  "The entity skeleton LINE belongs to: the last one starting at or before it."
  (let (best)
    (seq-doseq (e nsccn--skeleton-entities)
      (when (and (<= (plist-get e :skeletonLine) line)
                 (or (null best) (>= (plist-get e :skeletonLine) (plist-get best :skeletonLine))))
        (setq best e)))
    best))

(defun nsccn-skeleton-goto ()
  "Jump to the source line of the entity on the current skeleton line."
  (interactive)
  (let ((entity (nsccn--skeleton-entity-at (line-number-at-pos (point) t)))
        (source nsccn--skeleton-source))
    (unless entity (user-error "NSCCN: no entity on this line"))
    (pop-to-buffer (find-file-noselect source))
    (goto-char (point-min))
    (forward-line (1- (plist-get entity :sourceLine)))
    (back-to-indentation)))

;;;; Search

(defun nsccn--search-xrefs (server results)
  "xref items of nsccn/search RESULTS from SERVER."
  (mapcar (lambda (r)
            (let ((file (if (plist-get r :uri)
                            (eglot-uri-to-path (plist-get r :uri))
                          (nsccn--absolute server (plist-get r :file))))
                  (label (let ((sig (plist-get r :signature)))
                           (if (and sig (not (string-empty-p sig))) sig (plist-get r :name)))))
              (xref-make (format "[%s] %s" (plist-get r :kind) label)
                         (xref-make-file-location file (plist-get r :line) 0))))
          results))

;;;###autoload
(defun nsccn-search (query)
  "Search the workspace for QUERY (nsccn/search) and list the results."
  (interactive (list (read-string "NSCCN search: " nil nil (thing-at-point 'symbol t))))
  (when (string-empty-p (string-trim query)) (user-error "NSCCN: give a search query"))
  (let* ((server (nsccn--current-server))
         (res (nsccn--request server :nsccn/search (list :query query :limit nsccn-search-limit)))
         (xrefs (nsccn--search-xrefs server (append (plist-get res :results) nil))))
    (unless xrefs (user-error "NSCCN: no results for %s" query))
    (xref-show-xrefs (lambda () xrefs) nil)))

;;;; Trace

(defun nsccn--edge-location (server res from edge)
  "(FILE . LINE) where EDGE out of FROM in trace RES is best looked at.
Callers (incoming edges) at their call site; resolved targets at
their definition; names the graph could not resolve at the site in
FROM's file."
  (let* ((entities (plist-get res :entities))
         (target (plist-get entities (intern (concat ":" (plist-get edge :target)))))
         (source (plist-get entities (intern (concat ":" from)))))
    (cond ((and (plist-get edge :incoming) target)
           (cons (nsccn--absolute server (plist-get target :file))
                 (or (plist-get edge :line) (plist-get target :line))))
          ((and (eq (plist-get edge :resolved) t) target (plist-get target :file))
           (cons (nsccn--absolute server (plist-get target :file)) (plist-get target :line)))
          (source
           (cons (nsccn--absolute server (plist-get source :file))
                 (or (plist-get edge :line) (plist-get source :line))))
          (t (cons nil (plist-get edge :line))))))

(defun nsccn--edge-summary (res edge)
  "One-line description of EDGE of trace RES."
  (let* ((target (plist-get (plist-get res :entities) (intern (concat ":" (plist-get edge :target)))))
         (flags (delq nil (list (unless (eq (plist-get edge :resolved) t) "unresolved")
                                (when (eq (plist-get edge :ambiguous) t) "ambiguous")
                                (when (eq (plist-get edge :caught) t) "caught")))))
    (concat (format "%s %s %s" (plist-get edge :relation)
                    (if (eq (plist-get edge :incoming) t) "<-" "->")
                    (plist-get edge :target))
            (when (and target (not (string-empty-p (plist-get target :signature))))
              (concat "  " (plist-get target :signature)))
            (when flags (format "  (%s)" (string-join flags ", "))))))

(defun nsccn-trace-edges (res)
  "The edges of trace RES depth first from its root: a list of (FROM . EDGE)."
  (let ((adjacency (plist-get res :adjacency))
        (expanded (make-hash-table :test #'equal))
        out)
    (cl-labels ((walk (id)
                  (unless (gethash id expanded)
                    (puthash id t expanded)
                    (seq-doseq (edge (plist-get adjacency (intern (concat ":" id))))
                      (push (cons id edge) out)
                      (walk (plist-get edge :target))))))
      (walk (plist-get res :root)))
    (nreverse out)))

(defun nsccn--trace-xrefs (server res)
  "xref items of trace RES from SERVER."
  (cl-loop for (from . edge) in (nsccn-trace-edges res)
           for loc = (nsccn--edge-location server res from edge)
           when (car loc)
           collect (xref-make (nsccn--edge-summary res edge)
                              (xref-make-file-location (car loc) (or (cdr loc) 1) 0))))

(defun nsccn-trace-request (direction &optional id)
  "Send nsccn/trace in DIRECTION from entity ID, or from point when ID is nil."
  (unless (member direction nsccn-trace-directions)
    (user-error "NSCCN: unknown direction %S (one of %s)" direction
                (string-join nsccn-trace-directions ", ")))
  (nsccn--request (nsccn--current-server) :nsccn/trace
                  (append (if id (list :id id)
                            (list :uri (nsccn--buffer-uri) :position (nsccn--position)))
                          (list :direction direction :depth nsccn-trace-depth))))

;;;###autoload
(defun nsccn-trace (direction &optional id)
  "Trace the causal graph in DIRECTION from the entity at point (nsccn/trace).
With a prefix argument, ask for an entity ID instead of using point."
  (interactive
   (list (completing-read "NSCCN trace direction: " nsccn-trace-directions nil t nil nil "down")
         (when current-prefix-arg (read-string "Entity id: "))))
  (let* ((server (nsccn--current-server))
         (res (nsccn-trace-request direction id))
         (xrefs (nsccn--trace-xrefs server res)))
    (unless xrefs (user-error "NSCCN: nothing %s of %s" direction (plist-get res :root)))
    (xref-show-xrefs (lambda () xrefs) nil)))

;;;###autoload
(defun nsccn-callers (&optional id)
  "List the callers of the entity at point (or of ID) in an xref buffer.
The editor-side action of the code lens \"N callers · M callees\"."
  (interactive)
  (let* ((server (nsccn--current-server))
         (res (nsccn--request server :nsccn/trace
                              (append (if id (list :id id)
                                        (list :uri (nsccn--buffer-uri) :position (nsccn--position)))
                                      (list :direction "up" :depth 1))))
         (xrefs (nsccn--trace-xrefs server res)))
    (unless xrefs (user-error "NSCCN: nobody calls %s" (plist-get res :root)))
    (xref-show-xrefs (lambda () xrefs) nil)))

;;;; Window

(define-derived-mode nsccn-window-mode special-mode "NSCCN-Window"
  "The source of one entity with line numbers (nsccn/window).")

(defcustom nsccn-window-context 3
  "Lines of context nsccn/window shows around the entity."
  :type 'natnum)

;;;###autoload
(defun nsccn-window (&optional id)
  "Show the source of the entity at point (or of ID) with line numbers (nsccn/window)."
  (interactive)
  (let* ((server (nsccn--current-server))
         (res (nsccn--request server :nsccn/window
                              (append (if id (list :id id)
                                        (list :uri (nsccn--buffer-uri) :position (nsccn--position)))
                                      (list :contextLines nsccn-window-context))))
         (buf (get-buffer-create (format "*nsccn-window: %s*" (plist-get res :id)))))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "%s:%d-%d\n" (plist-get res :file) (plist-get res :start) (plist-get res :end)))
        (insert (plist-get res :code) "\n")
        (goto-char (point-min)))
      (nsccn-window-mode)
      (setq nsccn--server server))
    (pop-to-buffer buf)
    buf))

;;;; Changes

(defun nsccn--changes-params (arg)
  "nsccn/changes params for ARG: nil, \"--staged\", \"--worktree\" or a revision."
  (cond ((or (null arg) (string-empty-p arg)) nil)
        ((equal arg "--staged") (list :staged t))
        ((equal arg "--worktree") (list :worktree t))
        (t (list :since arg))))

(defun nsccn--changes-xrefs (server res)
  "xref items of nsccn/changes RES from SERVER: one per entity, at its line."
  (mapcar (lambda (e)
            (let* ((callers (append (plist-get e :callers) nil))
                   (tests (append (plist-get e :tests) nil))
                   (summary (concat (format "%s %s" (plist-get e :change) (plist-get e :id))
                                    (when callers
                                      (format "  %s: %s"
                                              (if (equal (plist-get e :change) "deleted") "still named by" "callers")
                                              (string-join callers ", ")))
                                    (when tests (format "  tests: %s" (string-join tests ", "))))))
              (xref-make summary (xref-make-file-location (nsccn--absolute server (plist-get e :file))
                                                          (plist-get e :line) 0))))
          (append (plist-get res :entities) nil)))

;;;###autoload
(defun nsccn-changes (&optional arg)
  "List the entities a git diff touches, with callers and tests (nsccn/changes).
Without ARG: HEAD against the working tree.  Interactively, a prefix argument asks for a
revision, \"--staged\" or \"--worktree\"."
  (interactive (list (when current-prefix-arg
                       (read-string "NSCCN changes since (revision, --staged, --worktree): "))))
  (let* ((server (nsccn--current-server))
         (res (nsccn--request server :nsccn/changes (or (nsccn--changes-params arg) (make-hash-table))))
         (xrefs (nsccn--changes-xrefs server res)))
    (unless xrefs (user-error "NSCCN: no changed entities (%s)" (plist-get res :base)))
    (xref-show-xrefs (lambda () xrefs) nil)))

(provide 'nsccn)
;;; nsccn.el ends here
