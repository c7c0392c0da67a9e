/**
 * One row of a form (the Watch form, the Eval board's new-sweep form): the label, then the value as
 * text being typed (a block cursor while editing, a muted placeholder while blank) or as a choice
 * cycled with ‹ ›, and whatever the form shows after it.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { useTheme } from '../contexts/ThemeContext.js';
import { Spinner } from './Spinner.js';

export interface FormFieldProps {
  label: string;
  labelWidth: number;
  value: string;
  focused: boolean;
  /** Focused while the form takes keys. */
  editing: boolean;
  /** A choice among fixed values rather than text. */
  choice: boolean;
  /** After a choice: what the chosen value means. */
  note?: string;
  /** Shown while the text is blank. */
  placeholder?: string;
  /** After a text value: hints about it. */
  children?: ReactNode;
}

export function FormField({ label, labelWidth, value, focused, editing, choice, note, placeholder, children }: FormFieldProps) {
  const theme = useTheme();
  return (
    <Text wrap="truncate-end">
      <Text color={focused ? theme.accent : undefined} bold={focused}>
        {focused ? '› ' : '  '}
        {label.padEnd(labelWidth)}
      </Text>
      {choice ? (
        <>
          <Text bold={focused}>{focused ? `‹ ${value} ›` : value}</Text>
          <Text color={theme.muted}>{`  ${note ?? ''}`}</Text>
        </>
      ) : (
        <>
          {value}
          {editing ? <Text inverse> </Text> : null}
          {value ? null : <Text color={theme.muted}>{`${editing ? ' ' : ''}${placeholder ?? ''}`}</Text>}
          {children}
        </>
      )}
    </Text>
  );
}

/** Whether the named variable holds a key: never what it holds. */
export function KeyStatus({ set }: { set: boolean | null }) {
  const theme = useTheme();
  if (set === null) return null;
  return set ? <Text color={theme.status.ok}>{' (set)'}</Text> : <Text color={theme.status.warn}>{' (not set: no key is sent)'}</Text>;
}

/** A form's start row, then what the start is doing (a spinner) or the error about the form as a whole. */
export function FormStart({ label, focused, busy, error }: { label: string; focused: boolean; busy: string | null; error: string | null }) {
  const theme = useTheme();
  return (
    <>
      <Box marginTop={1}>
        <Text color={focused ? theme.accent : undefined} bold={focused} inverse={focused}>
          {`${focused ? '›' : ' '} [ ${label} ]`}
        </Text>
      </Box>
      <Box marginTop={1} flexDirection="column">
        {busy !== null ? <Spinner label={busy} /> : null}
        {error !== null ? <Text color={theme.status.error}>{error}</Text> : null}
      </Box>
    </>
  );
}
