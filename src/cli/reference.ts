/**
 * The command reference (docs/commands.md) written from the commander definitions themselves, so the
 * document cannot say what the program does not: `npm run docs:commands` writes it, and a test fails
 * when the file and the program differ.
 */
import type { Argument, Command, Option } from 'commander';

export function commandReference(program: Command): string {
  const out = [
    '# Command reference',
    '',
    '<!-- Written by `npm run docs:commands` from src/cli/main.ts; do not edit by hand. -->',
    '',
    `${program.description()}.`,
    '',
    'Global options (before or after the command):',
    '',
    ...optionLines(program.options as readonly Option[]),
    '',
  ];
  for (const command of commandsOf(program)) out.push(...section(command));
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** Every command that does something, depth first, in definition order. */
function commandsOf(parent: Command): Command[] {
  return parent.commands.flatMap((c) => [c, ...commandsOf(c)]);
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function section(command: Command): string[] {
  const args = (command.registeredArguments as readonly Argument[]).map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`));
  const hasOptions = (command.options as readonly Option[]).some((o) => !o.hidden);
  const usage = [pathOf(command), ...(command.commands.length > 0 ? ['<command>'] : []), ...(hasOptions ? ['[options]'] : []), ...args].join(' ');
  const lines = [`## ${pathOf(command)}`, '', command.description(), '', '```', usage, '```', ''];
  const described = (command.registeredArguments as readonly Argument[]).filter((a) => a.description);
  if (described.length > 0) {
    lines.push('Arguments:', '', ...described.map((a) => `- \`${a.name()}\`: ${a.description}`), '');
  }
  if (command.commands.length > 0) {
    lines.push(...command.commands.map((c) => `- [\`${pathOf(c)}\`](#${anchor(pathOf(c))}): ${c.description()}`), '');
  }
  if (hasOptions) lines.push('Options:', '', ...optionLines(command.options as readonly Option[]), '');
  return lines;
}

function optionLines(options: readonly Option[]): string[] {
  return options
    .filter((o) => !o.hidden)
    .map((o) => {
      const extras = [
        ...(o.mandatory ? ['required'] : []),
        ...(o.argChoices ? [`one of ${o.argChoices.join(', ')}`] : []),
        ...(o.defaultValue !== undefined && typeof o.defaultValue !== 'function' ? [`default ${JSON.stringify(o.defaultValue)}`] : []),
      ];
      return `- \`${o.flags}\`: ${o.description}${extras.length ? ` (${extras.join('; ')})` : ''}`;
    });
}

/** GitHub's heading anchor: lower case, spaces to hyphens, punctuation dropped. */
function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
}
