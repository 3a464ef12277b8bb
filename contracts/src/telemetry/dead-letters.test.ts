import { describe, expect, it } from 'vitest';
import { deadLetterReasonText } from './dead-letters.ts';

describe("a dead letter's reason in the reader's language", () => {
  it('reads every reason of the intake in Chinese, and leaves it as written in English', () => {
    expect(deadLetterReasonText('ts out of range', 'zh')).toBe('时间戳超出范围（2000 年至服务器时间后一天）');
    expect(deadLetterReasonText('payload over 262144 bytes', 'zh')).toBe('消息超过 262144 字节');
    expect(deadLetterReasonText('M-9 is not a sub-device of this gateway', 'zh')).toBe('M-9 不是该网关的子设备');
    expect(deadLetterReasonText('refused values: humidity (wrong type or out of range), foo (unknown identifier)', 'zh')).toBe(
      '拒收的值：humidity（类型不符或超出范围），foo（未知标识符）',
    );
    expect(deadLetterReasonText('ts out of range', 'en')).toBe('ts out of range');
  });
});
