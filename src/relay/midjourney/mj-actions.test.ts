import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { actionFromCustomId, keepsModalCode, mjModelOf, readSimpleChange } from './mj-actions.js';

describe('mjModelOf', () => {
  it('prices an action as mj_<action>, and a face swap as swap_face', () => {
    expect(mjModelOf('IMAGINE')).toBe('mj_imagine');
    expect(mjModelOf('HIGH_VARIATION')).toBe('mj_high_variation');
    expect(mjModelOf('CUSTOM_ZOOM')).toBe('mj_custom_zoom');
    expect(mjModelOf('SWAP_FACE')).toBe('swap_face');
  });
});

describe('keepsModalCode', () => {
  it('keeps 21 only for inpaint and custom zoom', () => {
    expect(keepsModalCode('INPAINT')).toBe(true);
    expect(keepsModalCode('CUSTOM_ZOOM')).toBe(true);
    expect(keepsModalCode('VARIATION')).toBe(false);
  });
});

describe('actionFromCustomId', () => {
  it.each([
    ['MJ::JOB::upsample::2::a1b2', 'UPSCALE'],
    ['MJ::JOB::upsample_v6_2x_subtle::1::a1b2::SOLO', 'UPSCALE'],
    ['MJ::JOB::variation::3::a1b2', 'VARIATION'],
    ['MJ::JOB::low_variation::1::a1b2::SOLO', 'LOW_VARIATION'],
    ['MJ::JOB::high_variation::1::a1b2::SOLO', 'HIGH_VARIATION'],
    ['MJ::JOB::pan_left::1::a1b2::SOLO', 'PAN'],
    ['MJ::JOB::reroll::0::a1b2::SOLO', 'REROLL'],
    ['MJ::Outpaint::50::1::a1b2::SOLO', 'ZOOM'],
    ['MJ::CustomZoom::a1b2', 'CUSTOM_ZOOM'],
    ['MJ::Inpaint::1::a1b2::SOLO', 'INPAINT'],
  ])('reads %s as %s', (customId, action) => {
    expect(actionFromCustomId(customId)).toBe(action);
  });

  it.each(['MJ::JOB::dance::1::a1b2', 'XX::JOB::upsample::1::a', 'MJ::JOB', ''])('refuses %j as unknown_action', (customId) => {
    expect(() => actionFromCustomId(customId)).toThrow(GatewayError);
    expect(() => actionFromCustomId(customId)).toThrow(/unknown_action/);
  });
});

describe('readSimpleChange', () => {
  it('reads U and V with an index, and R without', () => {
    expect(readSimpleChange('task_abc U2')).toEqual({ taskId: 'task_abc', action: 'UPSCALE', index: 2 });
    expect(readSimpleChange('  task_abc v4 ')).toEqual({ taskId: 'task_abc', action: 'VARIATION', index: 4 });
    expect(readSimpleChange('task_abc R')).toEqual({ taskId: 'task_abc', action: 'REROLL' });
  });

  it.each(['task_abc', 'task_abc U', 'task_abc U5', 'task_abc R1', 'task_abc X1', 'task_abc U1 extra'])('refuses %j', (content) => {
    expect(readSimpleChange(content)).toBeUndefined();
  });
});
