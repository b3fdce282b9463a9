/** The messages a spied-on logger method (jest.spyOn(Logger.prototype, ...)) got that contain `text`. */
export function logged(spy: jest.SpyInstance, text: string): string[] {
  return spy.mock.calls
    .map(([message]) => String(message))
    .filter((message) => message.includes(text));
}
