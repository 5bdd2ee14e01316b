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

  describe('an id listed twice', () => {
    const pick = (...records: Record<string, unknown>[]) => findMjRecord(records.map((record) => ({ id: '7', ...record })), '7');

    it('takes a finished record over an unfinished one, in either order', () => {
      expect(pick({ status: 'IN_PROGRESS', progress: '40%' }, { status: 'SUCCESS', imageUrl: 'https://cdn/x.png' })).toMatchObject({ status: 'SUCCESS' });
      expect(pick({ status: 'SUCCESS', imageUrl: 'https://cdn/x.png' }, { status: 'SUBMITTED' })).toMatchObject({ status: 'SUCCESS' });
      expect(pick({ status: 'NOT_START' }, { status: 'FAILURE', failReason: 'banned' })).toMatchObject({ status: 'FAILURE' });
    });

    it('takes a success over a failure (a task that made its image did not fail after), whatever the times', () => {
      expect(pick({ status: 'SUCCESS', finishTime: 1000 }, { status: 'FAILURE', finishTime: 2000 })).toMatchObject({ status: 'SUCCESS' });
      expect(pick({ status: 'CANCEL', finishTime: 3000 }, { status: 'SUCCESS', finishTime: 1000 })).toMatchObject({ status: 'SUCCESS' });
    });

    it('takes in progress over submitted', () => {
      expect(pick({ status: 'IN_PROGRESS', progress: '10%' }, { status: 'MODAL' })).toMatchObject({ status: 'IN_PROGRESS' });
    });

    it('takes the later finishTime, then startTime, then submitTime, of records in one state; a string time counts', () => {
      expect(pick({ status: 'SUCCESS', finishTime: 2000, imageUrl: 'new' }, { status: 'SUCCESS', finishTime: 1000, imageUrl: 'old' })).toMatchObject({ imageUrl: 'new' });
      expect(pick({ status: 'SUCCESS', finishTime: 1000, imageUrl: 'old' }, { status: 'SUCCESS', finishTime: '2000', imageUrl: 'new' })).toMatchObject({ imageUrl: 'new' });
      expect(pick({ status: 'IN_PROGRESS', startTime: 5, progress: '90%' }, { status: 'IN_PROGRESS', startTime: 4, progress: '20%' })).toMatchObject({ progress: '90%' });
      expect(pick({ status: 'SUBMITTED', submitTime: 1, prompt: 'a' }, { status: 'SUBMITTED', submitTime: 2, prompt: 'b' })).toMatchObject({ prompt: 'b' });
    });

    it('keeps the first listed when nothing tells them apart', () => {
      expect(pick({ status: 'SUCCESS', imageUrl: 'first' }, { status: 'SUCCESS', imageUrl: 'second' })).toMatchObject({ imageUrl: 'first' });
    });

    it('passes over a record of an unknown status while another is readable', () => {
      expect(pick({ status: 'RETRYING' }, { status: 'IN_PROGRESS' })).toMatchObject({ status: 'IN_PROGRESS' });
      expect(pick({ status: 'RETRYING' })).toMatchObject({ status: 'RETRYING' });
    });
  });
});
