/** A Tencent VOD channel's key, `SubAppId|SecretId|SecretKey[|Region]` (spec §4.9.5). */
export interface VodCredentials {
  subAppId: number;
  secretId: string;
  secretKey: string;
  region?: string;
}

/** Pure: the parts of a channel key; undefined when it is not of that shape. */
export function parseVodKey(key: string): VodCredentials | undefined {
  const parts = key.split('|').map((part) => part.trim());
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  const [subAppId = '', secretId = '', secretKey = '', region] = parts;
  if (!/^\d{1,10}$/.test(subAppId) || secretId === '' || secretKey === '') return undefined;
  return { subAppId: Number(subAppId), secretId, secretKey, ...(region === undefined || region === '' ? {} : { region }) };
}
