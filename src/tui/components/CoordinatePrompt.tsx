import type { CoordinatePrompt as Prompt } from '../state/live.js';
import { TextPrompt } from './TextPrompt.js';

/** The inline "lat, lon" prompt for a pin or a guess, with the parser's note when the text held none. */
export function CoordinatePrompt({ prompt }: { prompt: Prompt }) {
  return (
    <TextPrompt
      label={`${prompt.purpose === 'pin' ? 'pin at' : 'guess'} (lat, lon):`}
      text={prompt.text}
      submit={prompt.purpose}
      error={prompt.error}
    />
  );
}
