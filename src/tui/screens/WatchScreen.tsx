import { Box, Text, type Key } from 'ink';
import { Footer } from '../components/Footer.js';
import { FormField, FormStart, KeyStatus } from '../components/FormField.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { Spinner } from '../components/Spinner.js';
import { useNavigation, useNavigationActions, useScreenActive, type NavigationActions } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useWatchForm, type WatchFormActions, type WatchFormView } from '../hooks/useWatchForm.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { keyHint, matches, type HintItem } from '../keys.js';
import { START_POSITION, WATCH_FIELDS, type FieldSpec, type WatchField } from '../state/watch-form.js';

const HINTS: HintItem[] = [
  { commands: ['watch.prev', 'watch.next'], label: 'field' },
  { commands: ['watch.choose'], label: 'protocol' },
  { commands: ['watch.enter'], label: 'next/start' },
  { commands: ['watch.help'], label: 'help' },
  { commands: ['watch.back'], label: 'back' },
];

/** What an empty field means, shown in its place. */
const EMPTY: Partial<Record<WatchField, string>> = {
  model: 'the name the endpoint lists at /v1/models',
  apiKeyEnv: 'none: no key is sent',
  task: 'blank: a random task of the split',
};

const PROTOCOL_NOTES: Record<string, string> = {
  tools: 'native tool calls (what the adapter was trained with)',
  json: 'one JSON action per turn (the public eval harness)',
};

const LABEL_WIDTH = Math.max(...WATCH_FIELDS.map((f) => f.label.length)) + 2;

export function WatchScreen() {
  const { help, notice } = useNavigation();
  const navigation = useNavigationActions();
  const { state: form, actions } = useWatchForm(useServices().watch, useScreenActive(), (source, started) => {
    navigation.open({ screen: 'live', source });
    if (started) navigation.notify(started);
  });
  useScreenKeys('watch.help', (input, key) => onKey(actions, navigation, input, key));

  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>WATCH A MODEL · one task played live, recorded in the workspace</Text>} right={keyHint(['watch.help', 'watch.back'])} />
      {help ? (
        <HelpOverlay title="Watch a model" groups={['watch']} />
      ) : (
        <Box flexDirection="column" marginTop={1} flexGrow={1}>
          {form.phase === 'loading' ? <Spinner label="reading the last settings" /> : <Fields form={form} />}
        </Box>
      )}
      <Footer notice={notice} hints={HINTS} />
    </Box>
  );
}

function onKey(form: WatchFormActions, navigation: NavigationActions, input: string, key: Key): void {
  if (matches('watch.back', input, key)) {
    form.cancel();
    navigation.back();
  }
  else if (matches('watch.next', input, key)) form.move(1);
  else if (matches('watch.prev', input, key)) form.move(-1);
  else if (matches('watch.choose', input, key)) form.choose(key.leftArrow ? -1 : 1);
  else if (matches('watch.erase', input, key)) form.erase();
  else if (matches('watch.enter', input, key)) form.submit();
  // Printable text only: arrows and other named keys arrive with an empty input.
  else if (input && !key.ctrl && !key.meta) form.type(input);
}

function Fields({ form }: { form: WatchFormView }) {
  const theme = useTheme();
  const error = form.error;
  return (
    <Box flexDirection="column">
      {WATCH_FIELDS.map((field, i) => (
        <Box key={field.name} flexDirection="column">
          <FieldRow field={field} form={form} focused={i === form.focus} />
          {error?.field === field.name ? <Text color={theme.status.error}>{`    ${error.message}`}</Text> : null}
        </Box>
      ))}
      <FormStart
        label="Start"
        focused={form.focus === START_POSITION}
        busy={form.phase === 'checking' ? `asking ${form.values.baseUrl.trim()} whether it serves "${form.values.model.trim()}"` : null}
        error={error && error.field === null ? error.message : null}
      />
    </Box>
  );
}

function FieldRow({ field, form, focused }: { field: FieldSpec; form: WatchFormView; focused: boolean }) {
  const theme = useTheme();
  const value = form.values[field.name];
  return (
    <FormField label={field.label} labelWidth={LABEL_WIDTH} value={value} focused={focused} editing={focused && form.phase === 'editing'} choice={Boolean(field.choices)} note={PROTOCOL_NOTES[value]} placeholder={EMPTY[field.name]}>
      {field.name === 'apiKeyEnv' ? <KeyStatus set={form.keySet} /> : null}
      {field.name === 'split' && form.splits ? <Text color={theme.muted}>{`  (served: ${form.splits.join(', ')})`}</Text> : null}
    </FormField>
  );
}
