// The tokenizer files of a BERT-style WordPiece model folder, as @huggingface/transformers loads
// them (tokenizer.json and tokenizer_config.json): lowercasing, BERT's split on whitespace and
// punctuation, `##` continuations, [CLS] … [SEP] around a text. Written for the small-transformer
// experiment (prepare.ts) and the tiny test model (test/helpers/tiny-model.ts).

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/** tokenizer.json for `vocab` (ids in order; the special tokens among them). */
export function tokenizerJson(vocab: readonly string[]): unknown {
  const ids = Object.fromEntries(vocab.map((w, i) => [w, i]));
  const special = (t: string) => ({ id: t, ids: [ids[t]], tokens: [t] });
  const cls = { SpecialToken: { id: '[CLS]', type_id: 0 } };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((t) => ({ id: ids[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [cls, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [cls, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

/** tokenizer_config.json: texts are cut at `maxLength` tokens. */
export function tokenizerConfig(maxLength: number): unknown {
  return { tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: maxLength, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' };
}
