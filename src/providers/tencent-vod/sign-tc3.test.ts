import { describe, expect, it } from 'vitest';
import { sha256Hex, tc3Authorization, tc3Signature } from './sign-tc3.js';

describe('TC3-HMAC-SHA256', () => {
  // Tencent Cloud's published example (API 3.0 "Signature v3": CVM DescribeInstances, GET, 2018-10-09).
  it('reproduces the signature of Tencent’s documented example', () => {
    const canonicalRequest = [
      'GET',
      '/',
      'Limit=10&Offset=0',
      'content-type:application/x-www-form-urlencoded\nhost:cvm.tencentcloudapi.com\n',
      'content-type;host',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ].join('\n');
    expect(sha256Hex(canonicalRequest)).toBe('91c9c192c14460df6c1ffc69e34e6c5e90708de2a6d282cccf957dbf1aa7f3a7');
    const stringToSign = ['TC3-HMAC-SHA256', '1539084154', '2018-10-09/cvm/tc3_request', sha256Hex(canonicalRequest)].join('\n');
    expect(tc3Signature('Gu5t9xGARNpq86cd98joQYCN3EXAMPLE', '2018-10-09', 'cvm', stringToSign)).toBe('5da7a33f6993f0614b047e5df4582db9e9bf4672ba50567dba16c6ccf174c474');
  });

  it('signs a POST over the UTC date of its timestamp, with the three headers it sends', () => {
    const request = { secretId: 'AKIDexample', secretKey: 'secret', service: 'vod', host: 'vod.tencentcloudapi.com', action: 'DescribeTaskDetail', contentType: 'application/json; charset=utf-8', body: '{"TaskId":"t"}', timestamp: 1_764_287_999 };
    const authorization = tc3Authorization(request);
    // 1764287999 is 2025-11-27T23:59:59Z: the scope's date is the UTC one, not the local one.
    expect(authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDexample\/2025-11-27\/vod\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/);
    const canonical = ['POST', '/', '', 'content-type:application/json; charset=utf-8\nhost:vod.tencentcloudapi.com\nx-tc-action:describetaskdetail\n', 'content-type;host;x-tc-action', sha256Hex(request.body)].join('\n');
    const expected = tc3Signature('secret', '2025-11-27', 'vod', ['TC3-HMAC-SHA256', '1764287999', '2025-11-27/vod/tc3_request', sha256Hex(canonical)].join('\n'));
    expect(authorization.endsWith(`Signature=${expected}`)).toBe(true);
    // Any change to what is signed changes the signature.
    expect(tc3Authorization({ ...request, body: '{"TaskId":"u"}' })).not.toBe(authorization);
    expect(tc3Authorization({ ...request, host: 'vod.ap-guangzhou.tencentcloudapi.com' })).not.toBe(authorization);
  });
});
