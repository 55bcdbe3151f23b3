// The app's Supabase browser client, reduced to what api.ts asks of it: the signed-in user's session.
// In the app it comes from the Supabase login; here the user's access token (a JWT signed with the
// project's secret) comes from the environment, so the ADR's api.ts runs unchanged.
export type Session = { access_token: string };

export function createClient() {
  return {
    auth: {
      async getSession(): Promise<{ data: { session: Session | null } }> {
        const token = process.env.SUPABASE_ACCESS_TOKEN;
        return { data: { session: token ? { access_token: token } : null } };
      },
    },
  };
}
