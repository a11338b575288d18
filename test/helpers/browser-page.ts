/**
 * One tab of the headless chromium (chromium.ts), driven as a user would:
 * navigation, expressions evaluated in the page, waiting on what the page
 * shows (re-checked on every DOM change, no polling), real mouse clicks and
 * typing. Frames count too: a frame of another origin may live in another
 * process (a sandboxed srcdoc does), so frames are attached as they appear
 * (flattened CDP sessions, with their execution contexts tracked), and a click
 * inside one lands at the element's page coordinates, summed along the chain
 * of frame elements that hold it. Exceptions and console errors of every
 * frame are kept in `problems`.
 */

import type { Chromium } from './chromium.js';

/** A frame to evaluate in: its CDP session, and the execution context when it is not the session's main frame. */
export interface Frame {
  session: string;
  contextId?: number;
}

/** A step of the way down to a frame: the frame, and the selector of the iframe element in it that holds the next one. */
export interface FrameStep {
  frame: Frame;
  owner?: string;
}

interface Context {
  session: string;
  id: number;
  origin: string;
  /** Whether it is its frame's main world (not an extension's or an isolated one). */
  isDefault: boolean;
}

export class BrowserPage {
  readonly problems: string[] = [];
  private readonly contexts: Context[] = [];
  private readonly sessions = new Set<string>();

  private constructor(
    private readonly browser: Chromium,
    readonly session: string,
  ) {
    this.sessions.add(session);
    browser.onEvent((event, from) => {
      if (!from || !this.sessions.has(from)) return;
      this.heard(event as Record<string, unknown> & { method: string }, from);
    });
  }

  /** A new tab with its page, runtime and frame attachment on, `width`×`height` CSS pixels. */
  static async open(browser: Chromium, width = 760, height = 860): Promise<BrowserPage> {
    const page = new BrowserPage(browser, await browser.newPage());
    await page.enable(page.session);
    await browser.send('Page.enable', {}, page.session);
    await browser.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, page.session);
    return page;
  }

  /** The page's main frame. */
  get top(): Frame {
    return { session: this.session };
  }

  private async enable(session: string): Promise<void> {
    await this.browser.send('Runtime.enable', {}, session);
    await this.browser.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, session);
  }

  private heard(event: Record<string, unknown> & { method: string }, from: string): void {
    switch (event.method) {
      case 'Target.attachedToTarget': {
        const child = event.sessionId as string;
        this.sessions.add(child);
        void this.enable(child).catch(() => undefined);
        return;
      }
      case 'Target.detachedFromTarget':
        this.sessions.delete(event.sessionId as string);
        this.forget((c) => c.session === event.sessionId);
        return;
      case 'Runtime.executionContextCreated': {
        const context = event.context as { id: number; origin: string; auxData?: { isDefault?: boolean } };
        this.contexts.push({ session: from, id: context.id, origin: context.origin, isDefault: context.auxData?.isDefault === true });
        return;
      }
      case 'Runtime.executionContextDestroyed':
        this.forget((c) => c.session === from && c.id === event.executionContextId);
        return;
      case 'Runtime.executionContextsCleared':
        this.forget((c) => c.session === from);
        return;
      case 'Runtime.exceptionThrown':
        this.problems.push(JSON.stringify(event.exceptionDetails));
        return;
      case 'Runtime.consoleAPICalled':
        if (event.type === 'error' || event.type === 'warning') this.problems.push(JSON.stringify(event.args));
    }
  }

  private forget(gone: (context: Context) => boolean): void {
    for (let i = this.contexts.length - 1; i >= 0; i--) if (gone(this.contexts[i]!)) this.contexts.splice(i, 1);
  }

  /** Evaluates `expression` in a frame (awaiting a promise) and returns its value. */
  async evaluate<T>(expression: string, frame: Frame = this.top): Promise<T> {
    const params = { expression, awaitPromise: true, returnByValue: true, ...(frame.contextId !== undefined ? { contextId: frame.contextId } : {}) };
    const reply = (await this.browser.send('Runtime.evaluate', params, frame.session)) as {
      result: { value?: T };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (reply.exceptionDetails) throw new Error(`in the page: ${reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text}`);
    return reply.result.value as T;
  }

  /** Resolves with `expression`'s value once it is truthy, re-checked on every DOM change of the frame. */
  waitFor<T>(expression: string, frame: Frame = this.top): Promise<T> {
    return this.evaluate<T>(
      `new Promise((resolve) => {
        const observer = new MutationObserver(() => check());
        const check = () => { const value = (${expression}); if (value) { observer.disconnect(); resolve(value); } };
        observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
        check();
      })`,
      frame,
    );
  }

  /**
   * The frame (of any process) whose document makes `predicate` truthy, once
   * there is one: frames come and go with navigation, so this looks again on
   * every new execution context, a bounded number of times.
   */
  async frame(predicate: string): Promise<Frame> {
    for (let attempt = 0; attempt < 200; attempt++) {
      for (const context of this.contexts.filter((c) => c.isDefault)) {
        const frame = { session: context.session, contextId: context.id };
        const found = await this.evaluate<boolean>(`Boolean(${predicate})`, frame).catch(() => false);
        if (found) return frame;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no frame has ${predicate}`);
  }

  /**
   * A real mouse click in the middle of the element; in a frame, `path` leads
   * down to it from the page. As a user would, it waits (a bounded number of
   * looks) until the element is inside its frame's viewport and has stopped
   * moving: a frame that follows its app's size grows a moment after the app
   * does, and a scrollbar may come and shift the page.
   */
  async click(selector: string, path: readonly FrameStep[] = [{ frame: this.top }]): Promise<void> {
    let last: { x: number; y: number; visible: boolean } | undefined;
    for (let look = 0; look < 100; look++) {
      const point = await this.pointOf(selector, path);
      if (point.visible && last?.visible && point.x === last.x && point.y === last.y) {
        for (const type of ['mousePressed', 'mouseReleased']) {
          await this.browser.send('Input.dispatchMouseEvent', { type, x: point.x, y: point.y, button: 'left', clickCount: 1 }, this.session);
        }
        return;
      }
      last = point;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${selector} did not come to rest inside its frame's viewport (last seen at ${JSON.stringify(last)})`);
  }

  /** The middle of the element in page coordinates, and whether it is inside its own frame's viewport. */
  private async pointOf(selector: string, path: readonly FrameStep[]): Promise<{ x: number; y: number; visible: boolean }> {
    let x = 0;
    let y = 0;
    for (const step of path.slice(0, -1)) {
      // The content box of the iframe element, in its frame's viewport.
      const box = await this.evaluate<{ x: number; y: number }>(
        `(() => { const f = document.querySelector(${JSON.stringify(step.owner)}); const r = f.getBoundingClientRect(); return { x: r.x + f.clientLeft, y: r.y + f.clientTop }; })()`,
        step.frame,
      );
      x += box.x;
      y += box.y;
    }
    const target = await this.evaluate<{ x: number; y: number; visible: boolean }>(
      `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); const x = r.x + r.width / 2, y = r.y + r.height / 2; return { x, y, visible: x >= 0 && y >= 0 && x < innerWidth && y < innerHeight }; })()`,
      path.at(-1)!.frame,
    );
    return { x: x + target.x, y: y + target.y, visible: target.visible };
  }

  /** Focuses the field and types into it as a keyboard would. */
  async type(selector: string, text: string, frame: Frame = this.top): Promise<void> {
    await this.evaluate(`document.querySelector(${JSON.stringify(selector)}).focus()`, frame);
    await this.browser.send('Input.insertText', { text }, this.session);
  }

  async navigate(url: string): Promise<void> {
    const loaded = new Promise<void>((resolve) => this.browser.onEvent((event, session) => event.method === 'Page.loadEventFired' && session === this.session && resolve()));
    await this.browser.send('Page.navigate', { url }, this.session);
    await loaded;
  }

  async screenshot(): Promise<Buffer> {
    const { data } = (await this.browser.send('Page.captureScreenshot', { format: 'png' }, this.session)) as { data: string };
    return Buffer.from(data, 'base64');
  }
}
