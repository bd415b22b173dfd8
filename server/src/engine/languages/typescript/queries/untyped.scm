; JavaScript only (see common.scm).
(field_definition) @field
