extension Duration {
    /// The duration in seconds (tier 2's stages, the grouper's phases, the agent's loop).
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
