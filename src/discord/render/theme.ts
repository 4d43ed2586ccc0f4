// The bot's visual language: one colour and one marker per kind of message, used by every embed.

export type Tone = "info" | "success" | "warning" | "error" | "deal" | "trade" | "neutral";

export const COLOURS: Readonly<Record<Tone, number>> = {
  info: 0x5865f2,
  success: 0x2ecc71,
  warning: 0xf1c40f,
  error: 0xe74c3c,
  deal: 0x1abc9c,
  trade: 0x3498db,
  neutral: 0x95a5a6,
};

export const MARKERS: Readonly<Record<Tone, string>> = {
  info: "ℹ️",
  success: "✅",
  warning: "⚠️",
  error: "❌",
  deal: "💸",
  trade: "🤝",
  neutral: "•",
};
