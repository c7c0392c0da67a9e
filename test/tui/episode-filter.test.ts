import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeFilter, isFiltered, parseFilter, type EpisodeFilter } from '../../src/tui/state/episode-filter.js';

function parsed(text: string): EpisodeFilter {
  const result = parseFilter(text);
  if (!result.ok) throw new Error(`expected "${text}" to parse: ${result.message}`);
  return result.filter;
}

function refused(text: string): string {
  const result = parseFilter(text);
  if (result.ok) throw new Error(`expected "${text}" to be refused, got ${JSON.stringify(result.filter)}`);
  return result.message;
}

describe('parseFilter', () => {
  it('reads the named terms and leaves the rest as text to search for', () => {
    expect(parsed('model:base split:eval country:Japan verdict:Pinpoint')).toEqual({
      model: 'base',
      split: 'eval',
      country: 'Japan',
      verdict: 'Pinpoint',
    });
    expect(parsed('endpoint')).toEqual({ search: 'endpoint' });
    expect(parsed('  model:base   timeout  ')).toEqual({ model: 'base', search: 'timeout' });
    expect(parsed('')).toEqual({});
  });

  it('reads reward ranges with either bound left open', () => {
    expect(parsed('reward:0.5..1')).toEqual({ minReward: 0.5, maxReward: 1 });
    expect(parsed('reward:..0.2')).toEqual({ maxReward: 0.2 });
    expect(parsed('reward:0.9..')).toEqual({ minReward: 0.9 });
    expect(parsed('reward:.25..0.75')).toEqual({ minReward: 0.25, maxReward: 0.75 });
    expect(parsed('reward:0..0')).toEqual({ minReward: 0, maxReward: 0 });
  });

  it('takes keys in any case, values as typed', () => {
    expect(parsed('Model:Base VERDICT:close')).toEqual({ model: 'Base', verdict: 'close' });
  });

  it('keeps spaces inside quotes, and a quoted key is plain text', () => {
    expect(parsed('country:"united states" verdict:"Right region"')).toEqual({ country: 'united states', verdict: 'Right region' });
    expect(parsed('"model:base"')).toEqual({ search: 'model:base' });
    expect(parsed('"model endpoint"')).toEqual({ search: 'model endpoint' });
  });

  it('joins the free words into one search, in order', () => {
    expect(parsed('model endpoint verdict:close unreachable')).toEqual({ verdict: 'close', search: 'model endpoint unreachable' });
  });

  it('treats an unknown key as text: an error message may hold a colon', () => {
    expect(parsed('ServiceError:')).toEqual({ search: 'ServiceError:' });
    expect(parsed('http://host:8000')).toEqual({ search: 'http://host:8000' });
  });

  it('refuses a term it cannot read, naming it and saying what would do', () => {
    expect(refused('model:base reward:abc')).toBe('"reward:abc" is not a range like reward:0.5..1, reward:..0.2 or reward:0.9..');
    expect(refused('reward:0.5')).toContain('"reward:0.5" is not a range');
    expect(refused('reward:..')).toContain('"reward:.." is not a range');
    expect(refused('reward:1..0.5')).toBe('"reward:1..0.5" has its lower bound above the upper');
    expect(refused('model:')).toBe('"model:" needs a value, like model:base');
    expect(refused('verdict:""')).toBe('"verdict:""" needs a value, like verdict:pinpoint');
    expect(refused('model:a model:b')).toBe('"model:b" is a second model: term; keep one');
    expect(refused('reward:0.1.. reward:..0.5')).toBe('"reward:..0.5" is a second reward: term; keep one');
    expect(refused('japan country:"united states')).toBe('"country:"united states" has a quote that is not closed');
  });
});

describe('describeFilter', () => {
  it('writes the canonical form the header shows', () => {
    expect(describeFilter({})).toBe('');
    expect(describeFilter({ verdict: 'Pinpoint', model: 'base' })).toBe('model:base verdict:Pinpoint');
    expect(describeFilter({ minReward: 0.5, maxReward: 1 })).toBe('reward:0.5..1');
    expect(describeFilter({ maxReward: 0.2 })).toBe('reward:..0.2');
    expect(describeFilter({ country: 'United States', search: 'model endpoint' })).toBe('country:"United States" "model endpoint"');
    expect(describeFilter({ search: 'model:x' })).toBe('"model:x"');
  });

  it('reads back as the same filter', () => {
    // Values as the parser can produce them: no double quotes, no surrounding spaces in a search.
    const value = fc.string({ minLength: 1, maxLength: 12 }).filter((v) => !v.includes('"'));
    // Rewards as people type them: decimals, not exponents.
    const bound = fc.option(
      fc.integer({ min: -200, max: 200 }).map((n) => n / 100),
      { nil: undefined },
    );
    const filter = fc
      .record(
        {
          model: value,
          split: value,
          country: value,
          verdict: value,
          minReward: bound,
          maxReward: bound,
          search: value.map((v) => v.trim()).filter((v) => v !== ''),
        },
        { requiredKeys: [] },
      )
      .map((f) => {
        // Bounds the way round a range holds them, and only defined fields (as the parser leaves them).
        const out: Record<string, unknown> = { ...f };
        if (f.minReward !== undefined && f.maxReward !== undefined && f.minReward > f.maxReward) {
          [out.minReward, out.maxReward] = [f.maxReward, f.minReward];
        }
        for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
        return out as EpisodeFilter;
      });
    fc.assert(
      fc.property(filter, (f) => {
        expect(parsed(describeFilter(f))).toEqual(f);
      }),
    );
  });
});

describe('isFiltered', () => {
  it('is false only for the empty filter', () => {
    expect(isFiltered({})).toBe(false);
    expect(isFiltered({ minReward: 0 })).toBe(true);
    expect(isFiltered({ search: 'x' })).toBe(true);
  });
});

describe('status: and text:', () => {
  it('reads each status in any case, and text: as one phrase', () => {
    expect(parsed('status:failed')).toEqual({ status: 'failed' });
    expect(parsed('status:Aborted')).toEqual({ status: 'aborted' });
    expect(parsed('status:provider-error')).toEqual({ status: 'provider-error' });
    expect(parsed('status:provider_error')).toEqual({ status: 'provider-error' });
    expect(parsed('status:scored')).toEqual({ status: 'scored' });
    expect(parsed('text:bollard')).toEqual({ text: 'bollard' });
    expect(parsed('text:"white road" model:base japan')).toEqual({ text: 'white road', model: 'base', search: 'japan' });
    expect(parsed('text:"say ""x"""')).toEqual({ text: 'say x' });
  });

  it('refuses a status it does not know, naming those it does', () => {
    expect(refused('status:done')).toBe('"status:done" is not a status: expected scored, failed, aborted or provider-error');
    expect(refused('status:')).toBe('"status:" needs a value, like status:failed');
    expect(refused('text:')).toBe('"text:" needs a value, like text:bollard');
    expect(refused('text:a text:b')).toBe('"text:b" is a second text: term; keep one');
  });

  it('writes them back in the canonical form, reading back as the same filter', () => {
    const filter: EpisodeFilter = { text: 'white road', status: 'provider-error', model: 'base' };
    expect(describeFilter(filter)).toBe('model:base status:provider-error text:"white road"');
    expect(parsed(describeFilter(filter))).toEqual(filter);
    expect(isFiltered({ status: 'aborted' })).toBe(true);
  });
});
