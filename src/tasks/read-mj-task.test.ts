import { describe, expect, it } from 'vitest';
import { findMjRecord, readMjTask } from './read-mj-task.js';

describe('readMjTask', () => {
  it.each([
    ['NOT_START', 'submitted'],
    ['SUBMITTED', 'submitted'],
    ['MODAL', 'submitted'],
    ['IN_PROGRESS', 'in_progress'],
    ['SUCCESS', 'success'],
    ['FAILURE', 'failure'],
    ['CANCEL', 'failure'],
  ])('reads %s as %s', (status, expected) => {
    expect(readMjTask({ id: '1', status })?.status).toBe(expected);
  });

  it('reads progress, 100 on success, and the failure reason (a default when none)', () => {
    expect(readMjTask({ status: 'IN_PROGRESS', progress: '45%' })).toEqual({ status: 'in_progress', progress: 45 });
    expect(readMjTask({ status: 'SUCCESS', progress: '90%' })).toEqual({ status: 'success', progress: 100 });
    expect(readMjTask({ status: 'FAILURE', progress: '', failReason: 'banned' })).toEqual({ status: 'failure', failReason: 'banned' });
    expect(readMjTask({ status: 'CANCEL' })?.failReason).toMatch(/cancelled/);
    expect(readMjTask({ status: 'FAILURE', failReason: ' ' })?.failReason).toMatch(/failed upstream/);
  });

  it('knows nothing of other shapes and statuses', () => {
    expect(readMjTask({ status: 'success' })).toBeUndefined();
    expect(readMjTask('SUCCESS')).toBeUndefined();
    expect(readMjTask(null)).toBeUndefined();
  });
});

describe('findMjRecord', () => {
  it('finds the record with the id in a bare array', () => {
    expect(findMjRecord([{ id: '1' }, { id: '2', status: 'SUCCESS' }], '2')).toEqual({ id: '2', status: 'SUCCESS' });
    expect(findMjRecord([{ id: '1' }], '2')).toBeUndefined();
    expect(findMjRecord({ id: '2' }, '2')).toBeUndefined();
  });
});
