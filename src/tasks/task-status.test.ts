import { describe, expect, it } from 'vitest';
import { nextTaskStatus, openaiVideoStatus, readProgress, taskStatusFromOpenaiVideo } from './task-status.js';

describe('task states', () => {
  it('reads OpenAI video statuses as new-api does, and nothing it does not know', () => {
    expect(['queued', 'pending', 'in_progress', 'processing', 'completed', 'failed', 'cancelled', 'weird'].map(taskStatusFromOpenaiVideo)).toEqual(['queued', 'queued', 'in_progress', 'in_progress', 'success', 'failure', 'failure', undefined]);
    expect((['not_start', 'submitted', 'queued', 'in_progress', 'success', 'failure'] as const).map(openaiVideoStatus)).toEqual(['queued', 'queued', 'queued', 'in_progress', 'completed', 'failed']);
  });

  it('moves forward only, and never out of a final state', () => {
    expect(nextTaskStatus('queued', 'in_progress')).toBe('in_progress');
    expect(nextTaskStatus('in_progress', 'queued')).toBeUndefined();
    expect(nextTaskStatus('in_progress', 'in_progress')).toBeUndefined();
    expect(nextTaskStatus('queued', 'failure')).toBe('failure');
    expect(nextTaskStatus('success', 'failure')).toBeUndefined();
    expect(nextTaskStatus('failure', 'success')).toBeUndefined();
    expect(nextTaskStatus('not_start', 'success')).toBeUndefined();
  });

  it('reads progress from numbers and "NN%" texts, clamped', () => {
    expect([40, '45%', 140, -3, 'soon', undefined].map(readProgress)).toEqual([40, 45, 100, 0, undefined, undefined]);
  });
});
