import { describe, expect, it } from 'vitest';
import { truthOf } from '../../src/core/tasks.js';
import { MCP_TOOL_NAMES } from '../../src/env/actions.js';
import { handleMcp, type JsonRpcResponse, type McpTool, type McpToolResult } from '../../src/env/mcp.js';
import { HALLSTATT, makeEpisode } from './helpers/episodes.js';
import { imageFormat } from './helpers/renderers.js';

const TRUTH = truthOf(HALLSTATT);

function call(name: string, args?: Record<string, unknown>, id: string | number = 1) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

function resultOf(response: JsonRpcResponse): McpToolResult {
  if (!('result' in response)) throw new Error(`expected a result, got ${JSON.stringify(response.error)}`);
  return response.result as McpToolResult;
}

function errorOf(response: JsonRpcResponse) {
  if (!('error' in response)) throw new Error(`expected an error, got ${JSON.stringify(response.result)}`);
  return response.error;
}

async function started() {
  const harness = makeEpisode();
  await harness.episode.reset({ index: 0 });
  return harness;
}

describe('tools/list', () => {
  it('lists the eleven MCP tools, each with a description with its cost and a JSON Schema', async () => {
    const { episode } = makeEpisode();
    const response = await handleMcp(episode, { jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    expect(response.id).toBe('list');
    const tools = (resultOf(response) as unknown as { tools: McpTool[] }).tools;
    expect(tools.map((t) => t.name)).toEqual([
      'look',
      'pan',
      'zoom',
      'move',
      'place_pin',
      'view_map',
      'list_pins',
      'clear_pins',
      'measure',
      'reverse_geocode',
      'submit_guess',
    ]);
    for (const tool of tools) {
      expect(tool.description).toMatch(/(Costs 0\.0\d and one action|Free)\.?/);
      expect(tool.inputSchema).toMatchObject({ type: 'object' });
      expect(tool.inputSchema.properties).not.toHaveProperty('op');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.place_pin!.inputSchema.required).toEqual(['lat', 'lon']);
    expect(byName.look!.inputSchema).not.toHaveProperty('required');
    expect(byName.measure!.description).toContain('Free for the first 24 calls');
    expect(byName.submit_guess!.inputSchema.anyOf).toEqual([{ required: ['lat', 'lon'] }, { required: ['response'] }]);
  });
});

describe('tools/call', () => {
  it('is exactly the equivalent step: same feedback, cost and budget, with the image as a content block', async () => {
    const { episode } = await started();
    const look = resultOf(await handleMcp(episode, call('look', { heading_deg: 90, fov_deg: 45 })));
    expect(look.isError).toBeUndefined();
    expect(look.content[0]).toEqual({ type: 'text', text: 'Facing 90° (E), pitch 0°, field of view 45°. 23 actions left.' });
    const image = look.content[1] as { type: 'image'; data: string; mimeType: string };
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    expect(await imageFormat(image.data)).toBe('jpeg');
    expect(episode.state()).toMatchObject({ steps_remaining: 23, action_cost: 0.01, camera: { heading_deg: 90, fov_deg: 45 } });

    const pin = resultOf(await handleMcp(episode, call('place_pin', { lat: 35.6762, lon: 139.6503 })));
    expect(pin.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Pin 1 placed at 35\.6762, 139\.6503 - Japan/) });
    expect(pin.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });

    // Steps and MCP calls share one budget.
    await episode.step({ op: 'move' });
    const listed = resultOf(await handleMcp(episode, call('list_pins')));
    expect(listed.content).toHaveLength(1);
    expect(episode.state()).toMatchObject({ steps_remaining: 21, action_cost: 0.08, step_count: 4 });
  });

  it('submit_guess scores and ends the episode; later calls are tool errors saying it is over', async () => {
    const { episode, maps } = await started();
    await handleMcp(episode, call('look'));
    await handleMcp(episode, call('place_pin', { lat: 1, lon: 1 }));
    const guess = resultOf(await handleMcp(episode, call('submit_guess', { lat: TRUTH.lat, lon: TRUTH.lon })));
    expect(guess.content[0]).toMatchObject({ text: expect.stringMatching(/^Perfect: .* reward 0\.9700\.$/) });
    expect(guess.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(episode.done).toBe(true);
    expect(maps.reveals).toHaveLength(1);

    const late = resultOf(await handleMcp(episode, call('look')));
    expect(late.isError).toBe(true);
    expect(late.content).toEqual([{ type: 'text', text: expect.stringMatching(/^The episode is over/) }]);
  });

  it('a free-text guess goes through the parser', async () => {
    const { episode } = await started();
    const guess = resultOf(await handleMcp(episode, call('submit_guess', { response: 'no clue' })));
    expect(guess.content[0]).toMatchObject({ text: expect.stringMatching(/^No usable guess\..*Scored 0\./) });
  });

  it('a call before any reset is a tool error', async () => {
    const { episode } = makeEpisode();
    const early = resultOf(await handleMcp(episode, call('look')));
    expect(early).toEqual({ content: [{ type: 'text', text: 'no episode yet: send reset first' }], isError: true });
  });
});

describe('JSON-RPC errors', () => {
  it('arguments out of range are invalid params and cost nothing', async () => {
    const { episode } = await started();
    const response = await handleMcp(episode, call('zoom', { fov_deg: 5 }, 'z'));
    expect(response.id).toBe('z');
    expect(errorOf(response)).toEqual({
      code: -32602,
      message: 'zoom.fov_deg: expected a number from 10 to 120, got 5',
      data: { code: 'VALIDATION_ERROR' },
    });
    expect(episode.state()).toMatchObject({ steps_remaining: 24, action_cost: 0 });
  });

  it('an unknown tool, missing or malformed params are invalid params', async () => {
    const { episode } = await started();
    expect(errorOf(await handleMcp(episode, call('pin', { lat: 1, lon: 1 })))).toMatchObject({
      code: -32602,
      message: `unknown tool "pin": expected one of ${MCP_TOOL_NAMES.join(', ')}`,
    });
    expect(errorOf(await handleMcp(episode, call('toString')))).toMatchObject({ code: -32602 });
    expect(errorOf(await handleMcp(episode, { jsonrpc: '2.0', id: 2, method: 'tools/call' })).code).toBe(-32602);
    expect(errorOf(await handleMcp(episode, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'look', arguments: [1] } })).code).toBe(
      -32602,
    );
  });

  it('an unknown method is -32601 and a malformed request -32600', async () => {
    const { episode } = await started();
    const unknown = await handleMcp(episode, { jsonrpc: '2.0', id: 9, method: 'resources/list' });
    expect(unknown).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'unknown method "resources/list": expected tools/list or tools/call' } });
    for (const bad of [null, [], 'tools/list', { id: 1, method: 'tools/list' }, { jsonrpc: '1.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: {}, method: 'tools/list' }]) {
      const response = await handleMcp(episode, bad);
      expect(response.id).toBeNull();
      expect(errorOf(response).code).toBe(-32600);
    }
    expect(episode.state()).toMatchObject({ steps_remaining: 24, step_count: 0 });
  });
});
