// The chat page's flow from the Writing Room ADR (§3): on the first message of a conversation it
// creates the chat with crypto.randomUUID() and POST /chats, then streams the turn with
// streamCharacterChat(). Prints one JSON line with everything the handlers received.
//
//   tsx src/check.ts new <character_id> <message>      create a chat, then stream a turn in it
//   tsx src/check.ts stream <chat_id> <character_id> <message>   stream a turn in an existing chat
import { createClient } from "@/lib/supabase/client";
import { streamCharacterChat } from "@/lib/api";

type Received = { event: string; data: unknown };

async function createChat(chatId: string, characterId: string): Promise<number> {
  const { data: { session } } = await createClient().auth.getSession();
  const res = await fetch(`${process.env.NEXT_PUBLIC_API_URL}/chats`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Authorization": `Bearer ${session?.access_token}` },
    body: JSON.stringify({ chat_id: chatId, character_id: characterId }),
  });
  return res.status;
}

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  let chatId: string;
  let characterId: string;
  let message: string;
  let created: number | null = null;
  if (mode === "new") {
    [characterId, message] = args;
    chatId = crypto.randomUUID();
    created = await createChat(chatId, characterId);
  } else if (mode === "stream") {
    [chatId, characterId, message] = args;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }

  const received: Received[] = [];
  await streamCharacterChat({ chat_id: chatId, character_id: characterId, message }, {
    onToken:    (e) => received.push({ event: "token", data: e }),
    onCitation: (e) => received.push({ event: "citation", data: e }),
    onGap:      (e) => received.push({ event: "gap", data: e }),
    onDone:     (e) => received.push({ event: "done", data: e }),
    onError:    (err) => received.push({ event: "error", data: err }),
  });
  console.log(JSON.stringify({ chat_id: chatId, created, received }));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
