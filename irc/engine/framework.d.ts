declare const mod: { Client: new () => unknown; default?: { Client: new () => unknown } };
export = mod;
