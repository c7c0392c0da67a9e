/** What a key does to a form's focused field (the Watch form, the new-sweep form): text typed or erased, a choice cycled. */

/** A field of a form: text, or one of fixed choices. */
export interface EditableField {
  choices?: readonly string[];
}

export type FieldEdit = { type: 'type'; text: string } | { type: 'erase' } | { type: 'choose'; delta: number };

/** The field's value after the edit: typing and erasing change text, choosing cycles a choice; anything else leaves it. */
export function editedValue(field: EditableField, value: string, edit: FieldEdit): string {
  const { choices } = field;
  switch (edit.type) {
    case 'type':
      // A paste arrives one key at a time, line breaks included: they are not text.
      // eslint-disable-next-line no-control-regex
      return choices ? value : value + edit.text.replace(/[\x00-\x1f\x7f]/g, '');
    case 'erase':
      return choices ? value : value.slice(0, -1);
    case 'choose':
      return choices ? (choices[(choices.indexOf(value) + edit.delta + choices.length) % choices.length] as string) : value;
  }
}

/**
 * The form with its focused field edited (none focused, e.g. the start row: unchanged). A change
 * clears the form's error, which was about the old text; no change gives back the same state.
 */
export function withFocusedEdited<S extends { values: object; error: unknown }>(
  state: S,
  field: (EditableField & { name: keyof S['values'] & string }) | undefined,
  edit: FieldEdit,
): S {
  if (!field) return state;
  const values = state.values as Readonly<Record<string, string>>;
  const value = editedValue(field, values[field.name] as string, edit);
  if (value === values[field.name]) return state;
  return { ...state, values: { ...values, [field.name]: value }, error: null };
}
