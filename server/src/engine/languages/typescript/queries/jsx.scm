; TSX and JavaScript (JSX) only (see common.scm): a component rendered is a component called.
(jsx_opening_element name: (_) @jsx)
(jsx_self_closing_element name: (_) @jsx)
