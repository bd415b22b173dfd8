; TypeScript and TSX only (see common.scm).
(abstract_class_declaration) @def
(interface_declaration) @def
(type_alias_declaration) @def
(enum_declaration) @def
(internal_module) @def
(module) @def
(function_signature) @def
(method_signature) @def
(abstract_method_signature) @def
(property_signature) @field
(public_field_definition) @field
(return_statement [(as_expression) (non_null_expression)] @return)
(arrow_function body: (as_expression) @return)
