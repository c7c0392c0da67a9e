/**
 * The Eval board's new-sweep form (`n`): the fields of state/sweep-form.ts, each with what a blank
 * means, the field's error under it, and Start. Drawn in the board's body; the keys are the screen's
 * (screens/EvalScreen.tsx hands them to `sweepFormKey`).
 */
import { Box, Text, type Key } from 'ink';
import { FormField, FormStart, KeyStatus } from '../components/FormField.js';
import { Spinner } from '../components/Spinner.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { matches } from '../keys.js';
import { sweepFormFields, sweepStartPosition, type SweepField, type SweepFieldSpec } from '../state/sweep-form.js';
import type { SweepFormActions, SweepFormView } from './useSweepForm.js';

/** What an empty field means, shown in its place. */
const EMPTY: Partial<Record<SweepField, string>> = {
  model: 'the name the endpoint lists at /v1/models',
  apiKeyEnv: 'none: no key is sent',
  modelsFile: "the harness's models file (JSON)",
  names: 'blank: every model of the file',
  limit: 'blank: every task of the split',
  concurrency: 'blank: follows the machine (8 per replica at most)',
};

const SOURCE_NOTES: Record<string, string> = {
  endpoint: 'one model at an OpenAI-compatible endpoint',
  'models file': "the harness's models file: every entry, or those named",
};

const LABEL_WIDTH = Math.max(...sweepFormFields('endpoint').map((f) => f.label.length), ...sweepFormFields('models file').map((f) => f.label.length)) + 2;

/** A key while the form is open: the form's own, then any printable text typed into the field. */
export function sweepFormKey(form: SweepFormActions, close: () => void, input: string, key: Key): void {
  if (matches('sweep.close', input, key)) close();
  else if (matches('sweep.next', input, key)) form.move(1);
  else if (matches('sweep.prev', input, key)) form.move(-1);
  else if (matches('sweep.choose', input, key)) form.choose(key.leftArrow ? -1 : 1);
  else if (matches('sweep.erase', input, key)) form.erase();
  else if (matches('sweep.enter', input, key)) form.submit();
  // Printable text only: arrows and other named keys arrive with an empty input.
  else if (input && !key.ctrl && !key.meta) form.type(input);
}

export function SweepForm({ form }: { form: SweepFormView }) {
  const theme = useTheme();
  if (form.phase === 'loading') {
    return form.error ? <Text color={theme.status.error}>{form.error.message}</Text> : <Spinner label="reading the last settings" />;
  }
  const error = form.error;
  return (
    <Box flexDirection="column">
      <Text color={theme.muted}>A sweep as `geolab eval run` plays it: every task × k samples, recorded in the workspace and the output folder.</Text>
      <Box flexDirection="column" marginTop={1}>
        {sweepFormFields(form.values.source).map((field, i) => (
          <Box key={field.name} flexDirection="column">
            <FieldRow field={field} form={form} focused={i === form.focus} />
            {error?.field === field.name ? <Text color={theme.status.error}>{`    ${error.message}`}</Text> : null}
          </Box>
        ))}
      </Box>
      <FormStart
        label="Start sweep"
        focused={form.focus === sweepStartPosition(form)}
        busy={form.phase === 'starting' ? 'checking the models and planning the sweep' : null}
        error={error && error.field === null ? error.message : null}
      />
    </Box>
  );
}

function FieldRow({ field, form, focused }: { field: SweepFieldSpec; form: SweepFormView; focused: boolean }) {
  const theme = useTheme();
  const value = form.values[field.name];
  const placeholder = field.name === 'out' && form.hints ? `blank: ${form.hints.sweepsDir}/<run id>` : EMPTY[field.name];
  return (
    <FormField label={field.label} labelWidth={LABEL_WIDTH} value={value} focused={focused} editing={focused && form.phase === 'editing'} choice={Boolean(field.choices)} note={SOURCE_NOTES[value]} placeholder={placeholder}>
      {field.name === 'apiKeyEnv' ? <KeyStatus set={form.keySet} /> : null}
      {field.name === 'split' && form.hints ? <Text color={theme.muted}>{`  (served: ${form.hints.splits.join(', ')})`}</Text> : null}
    </FormField>
  );
}
