; What the TypeScript/JavaScript extractor reads, one capture per node it acts on. Captures come
; back in source order; ../extract.ts keeps the stack of enclosing definitions from the spans.
; Node types shared by tree-sitter-javascript and tree-sitter-typescript live here; the
; TypeScript-only ones in typed.scm (a query naming an unknown node type does not compile).

; definitions
(function_declaration) @def
(generator_function_declaration) @def
(class_declaration) @def
(method_definition) @def
(variable_declarator) @var
(pair key: (_) value: [(arrow_function) (function_expression)]) @def
(catch_clause) @catch
(function_expression name: (identifier)) @def
(arrow_function) @lambda
(function_expression) @lambda
(member_expression object: [(this) (super) (identifier) (member_expression)] property: (property_identifier)) @access

; references
(call_expression) @call
(new_expression) @call
(throw_statement) @throw
(assignment_expression) @assign
(augmented_assignment_expression) @assign
(update_expression) @assign
(import_statement) @import
(export_statement) @export
(try_statement body: (_) @try)
((identifier) @const (#match? @const "^_?[A-Z][A-Z0-9_]+$"))
(member_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) (#eq? @_p "process") (#eq? @_e "env")) @env
(subscript_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) (#eq? @_p "process") (#eq? @_e "env")) @env
(member_expression object: (member_expression object: (meta_property) property: (property_identifier) @_e) (#eq? @_e "env")) @env
(return_statement [(new_expression) (call_expression) (member_expression) (identifier) (await_expression) (parenthesized_expression)] @return)
(arrow_function body: [(new_expression) (call_expression) (member_expression) (await_expression)] @return)
(for_in_statement) @forof
