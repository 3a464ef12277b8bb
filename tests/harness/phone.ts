let next = 0;

/**
 * A mainland mobile number no other call in this test process has returned: phones are unique
 * platform-wide (claimed like usernames and emails), so every user a test creates needs its own.
 * The 166 prefix keeps them apart from the literal numbers tests write out.
 */
export const uniquePhone = (): string => `166${String(next++).padStart(8, '0')}`;
