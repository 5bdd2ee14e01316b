import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeTencentVodUpstream, type FakeTencentVodUpstream } from './fake-tencent-vod-upstream.js';
import { tc3Signature, verifyTc3Request } from './verify-tc3-signature.js';

// Tencent's own example (cloud.tencent.com/document/api/213/30654, "Signature v3"): a CVM DescribeInstances
// GET signed at 1539084154 (2018-10-09T11:22:34Z).
const exampleCanonicalRequest =
  'GET\n/\nLimit=10&Offset=0\ncontent-type:application/x-www-form-urlencoded\nhost:cvm.tencentcloudapi.com\n\ncontent-type;host\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const secretId = 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE';
const secretKey = 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE';
const secrets = { [secretId]: secretKey };

/** A POST signed by hand from Tencent's steps (not through tc3Signature), as an SDK would. */
function signedPost(options: { body: string; host: string; action: string; timestamp: number; service?: string; secretId?: string; secretKey?: string; contentType?: string }) {
  const service = options.service ?? 'vod';
  const contentType = options.contentType ?? 'application/json; charset=utf-8';
  const date = new Date(options.timestamp * 1000).toISOString().slice(0, 10);
  const hex = (data: string) => createHash('sha256').update(data).digest('hex');
  const mac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const canonical = `POST\n/\n\ncontent-type:${contentType}\nhost:${options.host}\nx-tc-action:${options.action.toLowerCase()}\n\ncontent-type;host;x-tc-action\n${hex(options.body)}`;
  const toSign = `TC3-HMAC-SHA256\n${options.timestamp}\n${date}/${service}/tc3_request\n${hex(canonical)}`;
  const key = mac(mac(mac(`TC3${options.secretKey ?? secretKey}`, date), service), 'tc3_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    authorization: `TC3-HMAC-SHA256 Credential=${options.secretId ?? secretId}/${date}/${service}/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=${signature}`,
    'content-type': contentType,
    host: options.host,
    'x-tc-action': options.action,
    'x-tc-timestamp': String(options.timestamp),
    'x-tc-version': '2018-07-17',
  };
}

describe('tc3Signature / verifyTc3Request (the fake VOD upstream’s check)', () => {
  it('reproduces Tencent’s published example', () => {
    expect(createHash('sha256').update(exampleCanonicalRequest).digest('hex')).toBe('91c9c192c14460df6c1ffc69e34e6c5e90708de2a6d282cccf957dbf1aa7f3a7');
    expect(tc3Signature({ secretKey, date: '2018-10-09', service: 'cvm', timestamp: 1539084154, canonicalRequest: exampleCanonicalRequest })).toBe(
      '5da7a33f6993f0614b047e5df4582db9e9bf4672ba50567dba16c6ccf174c474',
    );
  });

  const now = 1_760_000_000;
  const body = JSON.stringify({ SubAppId: 1500000000, ModelName: 'Kling', ModelVersion: '2.6', Prompt: 'a cat' });
  const headers = signedPost({ body, host: 'vod.tencentcloudapi.com', action: 'CreateAigcVideoTask', timestamp: now - 10 });
  const check = (overrides: Partial<Parameters<typeof verifyTc3Request>[0]>) =>
    verifyTc3Request({ method: 'POST', headers, body: Buffer.from(body), secrets, service: 'vod', nowSeconds: now, ...overrides });

  it('accepts a correctly signed POST', () => {
    expect(check({})).toEqual({ ok: true, secretId });
    // Header names in another case, values with surrounding spaces: the same request.
    expect(check({ headers: { ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), ` ${value} `])) } })).toEqual({ ok: true, secretId });
  });

  it('refuses a tampered body, another host or action, a wrong secret, an unknown SecretId', () => {
    expect(check({ body: Buffer.from(body.replace('a cat', 'a dog')) })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureFailure' });
    expect(check({ headers: { ...headers, host: 'cvm.tencentcloudapi.com' } })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureFailure' });
    expect(check({ headers: { ...headers, 'x-tc-action': 'DescribeTaskDetail' } })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureFailure' });
    expect(check({ headers: { ...headers, 'content-type': 'application/json' } })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureFailure' });
    expect(check({ secrets: { [secretId]: 'wrong' } })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureFailure' });
    expect(check({ secrets: { AKIDother: secretKey } })).toMatchObject({ ok: false, code: 'AuthFailure.SecretIdNotFound' });
    expect(check({ service: 'cvm' })).toMatchObject({ ok: false, code: 'AuthFailure.InvalidAuthorization' });
  });

  it('refuses an expired timestamp either side of 300 s, and a credential date that is not the timestamp’s UTC date', () => {
    expect(check({ nowSeconds: now - 10 + 300 }).ok).toBe(true);
    expect(check({ nowSeconds: now - 10 + 301 })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureExpire' });
    expect(check({ nowSeconds: now - 10 - 301 })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureExpire' });
    // 2025-10-09T08:53:10Z signed with the date of the day before.
    const wrongDate = { ...headers, authorization: headers.authorization.replace(/\/\d{4}-\d{2}-\d{2}\//, '/2025-10-08/') };
    expect(check({ headers: wrongDate })).toMatchObject({ ok: false, code: 'AuthFailure.SignatureFailure' });
  });

  it('refuses a malformed Authorization', () => {
    const withAuthorization = (authorization: string | undefined) => check({ headers: { ...headers, authorization } });
    expect(withAuthorization(undefined)).toMatchObject({ ok: false, code: 'AuthFailure.InvalidAuthorization' });
    expect(withAuthorization(`Bearer ${secretKey}`)).toMatchObject({ ok: false, code: 'AuthFailure.InvalidAuthorization' });
    expect(withAuthorization(headers.authorization.replace('content-type;host;x-tc-action', 'host;content-type;x-tc-action'))).toMatchObject({ ok: false, code: 'AuthFailure.InvalidAuthorization' });
    expect(withAuthorization(headers.authorization.replace('content-type;host;x-tc-action', 'host;x-tc-action'))).toMatchObject({ ok: false, code: 'AuthFailure.InvalidAuthorization' });
    expect(check({ headers: { ...headers, 'x-tc-timestamp': undefined } })).toMatchObject({ ok: false, code: 'AuthFailure.InvalidAuthorization' });
  });
});

describe('startFakeTencentVodUpstream (round trip with a hand-signed client)', () => {
  let upstream: FakeTencentVodUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    upstream = undefined;
  });

  const call = async (fake: FakeTencentVodUpstream, action: string, payload: unknown, signing: { secretKey?: string; timestamp?: number } = {}) => {
    const body = JSON.stringify(payload);
    const headers = signedPost({ body, host: new URL(fake.url).host, action, timestamp: signing.timestamp ?? Math.floor(Date.now() / 1000), secretKey: signing.secretKey });
    const response = await fetch(`${fake.url}/`, { method: 'POST', headers, body });
    return { status: response.status, json: (await response.json()) as { Response: Record<string, any> } };
  };

  it('creates, describes, finishes and serves a task; refuses bad signatures and parameters as Tencent does', async () => {
    const fake = await startFakeTencentVodUpstream({ secrets, subAppId: 1500000000, fileBytes: 200_000 });
    upstream = fake;
    const created = await call(fake, 'CreateAigcVideoTask', { SubAppId: 1500000000, ModelName: 'Kling', ModelVersion: '2.6', Prompt: 'a cat', OutputConfig: { Duration: 5 } });
    expect(created.status).toBe(200);
    const taskId = created.json.Response.TaskId as string;
    expect(taskId).toMatch(/^1500000000-AigcVideoTask-[0-9a-f]{32}$/);
    expect(created.json.Response.RequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.requests[0]).toMatchObject({ action: 'CreateAigcVideoTask', method: 'POST', path: '/', body: { ModelName: 'Kling' } });

    const waiting = await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 1500000000 });
    expect(waiting.json.Response).toMatchObject({ TaskType: 'AigcVideoTask', Status: 'WAITING', AigcVideoTask: { TaskId: taskId, Progress: 0, ErrCode: 0, Output: { FileInfos: [] } } });

    fake.advance(taskId, { status: 'FINISH' });
    const finished = (await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 1500000000 })).json.Response;
    expect(finished.Status).toBe('FINISH');
    expect(finished.FinishTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const [cover, video] = finished.AigcVideoTask.Output.FileInfos as Array<Record<string, any>>;
    expect(cover).toMatchObject({ UsageType: 'image_url' });
    expect(video).toMatchObject({ UsageType: '', FileType: 'mp4', FileUrl: fake.fileUrlOf(taskId), MetaData: { Duration: 5 } });
    const download = await fetch(video!.FileUrl as string);
    expect(download.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.equals(fake.contentOf(taskId))).toBe(true);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect((await fetch(cover!.FileUrl as string)).headers.get('content-type')).toBe('image/jpeg');
    expect((await fetch(`${fake.url}/files/${'0'.repeat(32)}.mp4`)).status).toBe(404);

    expect((await call(fake, 'DescribeTaskDetail', { TaskId: 'nope', SubAppId: 1500000000 })).json.Response.Error.Code).toBe('ResourceNotFound.TaskNotExist');
    expect((await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 1 })).json.Response.Error.Code).toBe('InvalidParameterValue.SubAppId');
    expect((await call(fake, 'CreateAigcVideoTask', { SubAppId: 1500000000, ModelName: 'Kling', ModelVersion: '2.6' })).json.Response.Error.Code).toBe('MissingParameter');
    expect((await call(fake, 'CreateAigcVideoTask', { SubAppId: 1500000000, ModelName: 'Kling', ModelVersion: '2.6', Prompt: 'x', OutputConfig: { Duration: '5' } })).json.Response.Error.Code).toBe('InvalidParameter');
    expect((await call(fake, 'Nope', {})).json.Response.Error.Code).toBe('InvalidAction');
    const badSecret = await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 1500000000 }, { secretKey: 'wrong' });
    expect(badSecret).toMatchObject({ status: 200, json: { Response: { Error: { Code: 'AuthFailure.SignatureFailure' } } } });
    const stale = await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 1500000000 }, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.json.Response.Error.Code).toBe('AuthFailure.SignatureExpire');

    fake.enqueueFault({ action: 'DescribeTaskDetail', error: { Code: 'RequestLimitExceeded', Message: 'slow down' } });
    fake.enqueueFault({ action: 'DescribeTaskDetail', httpStatus: 502 });
    expect((await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 1500000000 })).json.Response.Error).toEqual({ Code: 'RequestLimitExceeded', Message: 'slow down' });
    const body = JSON.stringify({ TaskId: taskId, SubAppId: 1500000000 });
    const headers = signedPost({ body, host: new URL(fake.url).host, action: 'DescribeTaskDetail', timestamp: Math.floor(Date.now() / 1000) });
    expect((await fetch(`${fake.url}/`, { method: 'POST', headers, body })).status).toBe(502);
    expect((await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 1500000000 })).json.Response.Status).toBe('FINISH');
  });

  it('reports a failed FINISH without files', async () => {
    const fake = await startFakeTencentVodUpstream({ secrets, subAppId: 7 });
    upstream = fake;
    const taskId = (await call(fake, 'CreateAigcVideoTask', { SubAppId: 7, ModelName: 'Vidu', ModelVersion: 'q2', FileInfos: [{ Type: 'Url', Category: 'Image', Url: 'https://example.com/a.png' }] })).json.Response
      .TaskId as string;
    fake.advance(taskId, { status: 'FINISH', errCode: 10010, errCodeExt: 'InputComplianceCheckFailed', message: 'blocked' });
    const detail = (await call(fake, 'DescribeTaskDetail', { TaskId: taskId, SubAppId: 7 })).json.Response;
    expect(detail.AigcVideoTask).toMatchObject({ ErrCode: 10010, ErrCodeExt: 'InputComplianceCheckFailed', Message: 'blocked', Output: { FileInfos: [] } });
    expect((await fetch(fake.fileUrlOf(taskId))).status).toBe(404);
  });
});
