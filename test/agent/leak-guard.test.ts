import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareImage } from '../../src/agent/images.js';
import {
  findCoordinates,
  guardRequest,
  imageMetadata,
  knowledgeFromSpec,
  knowledgeFromTask,
  LeakGuardError,
  scanRequest,
  type GuardKnowledge,
} from '../../src/agent/leak-guard.js';
import type { RecordedMessage } from '../../src/agent/types.js';
import { destinationPoint } from '../../src/core/geodesy.js';
import { TaskSchema } from '../../src/core/task-schema.js';
import { truthOf } from '../../src/core/tasks.js';
import { makeTask } from '../helpers/fixtures.js';

const task = TaskSchema.parse(
  makeTask(3, { task_id: 'eval-00003', sequence_id: 'Sq7hGf2kPq9LmN0xYzAb12', attribution: { creator_username: 'alpine_walker', creator_id: '104857600123' } }),
);
const knowledge = knowledgeFromTask(task);
const truth = truthOf(task);
const noImages = new Map<string, { bytes: Buffer; mime: string }>();
const scan = (messages: RecordedMessage[], agentPoints = [] as { lat: number; lon: number }[], known: GuardKnowledge = knowledge) =>
  scanRequest({ messages, images: noImages, knowledge: known, agentPoints });
const user = (content: string): RecordedMessage => ({ role: 'user', content });

describe('leak guard: identity', () => {
  it('refuses a harness message carrying the task_id', async () => {
    const findings = await scan([user('Task eval-00003: where is this?')]);
    expect(findings).toMatchObject([{ kind: 'identity', message: 0, role: 'user', evidence: 'task_id "eval-00003"' }]);
    await expect(guardRequest({ messages: [user('id EVAL-00003')], images: noImages, knowledge, agentPoints: [] })).rejects.toThrow(
      /^leak guard: task_id "eval-00003" in message 0 \(user\)/,
    );
  });

  it('finds sequence ids, image ids and the contributor in tool results too', async () => {
    const tool: RecordedMessage = { role: 'tool', tool_call_id: 'c1', content: 'image img3a by alpine_walker (104857600123) in Sq7hGf2kPq9LmN0xYzAb12' };
    const kinds = (await scan([tool])).map((f) => f.evidence.split(' ')[0]);
    expect(kinds.sort()).toEqual(['creator_id', 'creator_username', 'image_id', 'sequence_id']);
  });

  it('matches whole tokens only and skips keys too short to tell from text', async () => {
    expect(await scan([user('eval-000031 and xeval-00003')])).toEqual([]);
    const short = { truth: null, identity: [{ kind: 'creator_id' as const, value: '0' }, { kind: 'creator_id' as const, value: '1234' }] };
    expect(await scan([user('Facing 0° with 1234 m to go')], [], short)).toEqual([]);
  });

  it('gives one knowledge object per task object, so the k episodes of a task share its compiled dictionaries', () => {
    expect(knowledgeFromTask(task)).toBe(knowledge);
    const copy = TaskSchema.parse(structuredClone(task));
    expect(knowledgeFromTask(copy)).not.toBe(knowledge);
    expect(knowledgeFromTask(copy)).toEqual(knowledge);
  });

  it("does not count the model's own messages", async () => {
    expect(await scan([{ role: 'assistant', content: 'Is this eval-00003?' }])).toEqual([]);
  });
});

describe('leak guard: coordinates', () => {
  const near = destinationPoint(truth.lat, truth.lon, 90, 10);

  it('refuses a point 10 km from the truth written by the harness', async () => {
    const findings = await scan([user(`Somewhere near ${near.lat.toFixed(4)}, ${near.lon.toFixed(4)}.`)]);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ kind: 'coordinates', evidence: expect.stringContaining('10.0 km from the truth') });
  });

  it('finds keyed, hemisphere and reversed forms', async () => {
    const n = near.lat.toFixed(3);
    const e = near.lon.toFixed(3);
    expect(await scan([user(`{"lat": ${n}, "lon": ${e}}`)])).not.toEqual([]);
    expect(await scan([user(`${n} N, ${e} E`)])).not.toEqual([]);
    expect(await scan([user(`[${e}, ${n}]`)])).not.toEqual([]);
  });

  it("lets the agent's own pin coordinates through", async () => {
    const pin = { role: 'tool' as const, tool_call_id: 'c1', content: `Pin 1 placed at ${near.lat.toFixed(4)}, ${near.lon.toFixed(4)} - Italy.` };
    expect(await scan([pin], [near])).toEqual([]);
    // Its point may come from the request itself: the assistant's tool call.
    const call: RecordedMessage = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'pin', arguments: JSON.stringify({ lat: near.lat, lon: near.lon }) } }],
    };
    expect(await scan([call, pin])).toEqual([]);
  });

  it('ignores points far from the truth and prose numbers', async () => {
    expect(await scan([user('Pin 1 placed at 10.0000, 20.0000 - Chad. Facing 90° (E), pitch 0°, field of view 90°. 11 tool calls left.')])).toEqual([]);
    expect(findCoordinates('between 10 and 120 degrees')).toEqual([]);
  });

  it('has no truth to compare against with a remote environment, only identity', async () => {
    const remote = knowledgeFromSpec({ task_id: 'eval-00003', sequence_id: null });
    expect(remote.truth).toBeNull();
    expect(await scan([user(`${near.lat.toFixed(4)}, ${near.lon.toFixed(4)} eval-00003`)], [], remote)).toMatchObject([{ kind: 'identity' }]);
  });
});

describe('leak guard: image metadata', () => {
  let plain: Buffer;
  let withExif: Buffer;
  beforeAll(async () => {
    const pixels = sharp({ create: { width: 32, height: 32, channels: 3, background: '#3a7' } });
    plain = await pixels.clone().jpeg().toBuffer();
    withExif = await pixels.clone().jpeg().withExif({ IFD0: { Artist: 'alpine_walker' } }).toBuffer();
  });

  it('finds EXIF in a JPEG and passes a clean one', async () => {
    expect(imageMetadata(withExif)).toContain('carries EXIF (APP1)');
    expect(imageMetadata(plain)).toEqual([]);
  });

  it('refuses a request whose image carries metadata', async () => {
    const images = new Map([['e'.repeat(64), { bytes: withExif, mime: 'image/jpeg' }]]);
    const message: RecordedMessage = { role: 'user', content: [{ type: 'image', sha256: 'e'.repeat(64), mime: 'image/jpeg' }] };
    await expect(guardRequest({ messages: [message], images, knowledge, agentPoints: [] })).rejects.toThrow(LeakGuardError);
  });

  it('sends images stripped of metadata', async () => {
    const prepared = await prepareImage(withExif, 16);
    expect(imageMetadata(prepared.bytes)).toEqual([]);
    expect((await sharp(prepared.bytes).metadata()).width).toBe(16);
  });
});
