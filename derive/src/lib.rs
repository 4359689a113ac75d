//! runestone's derive macros.
//!
//! [`TagFirst`](macro@TagFirst) reads an internally tagged enum
//! (`#[serde(tag = "type")]`) without serde's buffering. serde's own derive
//! collects every entry of the object into its private `Content` tree before
//! it knows the variant, whatever the order of the keys; the events a game
//! keeps are canonical JSON text with sorted keys, so the tag mostly comes
//! after other fields and every event was read twice, once into that tree.
//!
//! The derive generates, for each struct variant, a hidden struct with the
//! variant's fields and their `#[serde(...)]` attributes copied verbatim,
//! deriving `Deserialize` (so defaults, renames, `deny_unknown_fields` and
//! serde's error messages stay serde's own), and:
//!
//! - `Deserialize` for the enum: when the tag is the object's first key the
//!   variant's struct is read from the rest of the same map, with nothing
//!   buffered; when it is not, the object is collected into a
//!   `serde_json::Map` (the slow path, for any deserializer);
//! - `fn from_json_text(text: &str) -> serde_json::Result<Self>`: JSON text
//!   read in two passes, the first finding the tag, the second reading the
//!   variant's struct from the whole text with its one tag key skipped.
//!   Nothing is buffered whatever the order of the keys. The first pass is
//!   free when the tag is plainly the text's last key (`,"type":"Name"}`,
//!   as canonical text with sorted keys mostly ends); otherwise it parses
//!   the text with every other value skipped unread.
//!
//! Only struct and unit variants, no generics; variant attributes `rename`
//! and `alias`; container attributes `tag` (required), `rename_all`,
//! `rename_all_fields` and `deny_unknown_fields`. Anything else is refused
//! at compile time rather than read differently from serde. serde's
//! sequence form (`["Tag", field, ...]`, which serde_json never writes) is
//! read too, with two differences: too few elements are refused without
//! serde's "with N elements", and elements after a struct variant's fields
//! are ignored, not refused.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{parse_macro_input, Attribute, Data, DeriveInput, Error, Fields, Ident, LitStr, Type};

/// Reads an internally tagged enum without serde's buffering (module docs).
/// Derive it instead of `Deserialize`; keep `#[serde(tag = "...")]`.
#[proc_macro_derive(TagFirst, attributes(serde))]
pub fn tag_first(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

struct Container {
    tag: String,
    rename_all: Option<String>,
    rename_all_fields: Option<LitStr>,
    deny_unknown_fields: bool,
}

struct Field {
    ident: Ident,
    ty: Type,
    serde: Vec<Attribute>,
}

struct Variant {
    ident: Ident,
    /// The name written, then its aliases.
    names: Vec<String>,
    /// `None` for a unit variant.
    fields: Option<Vec<Field>>,
}

fn serde_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("serde"))
}

fn container(input: &DeriveInput) -> syn::Result<Container> {
    let mut tag = None;
    let mut rename_all = None;
    let mut rename_all_fields = None;
    let mut deny_unknown_fields = false;
    for attr in serde_attrs(&input.attrs) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") {
                tag = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("rename_all") {
                let rule: LitStr = meta.value()?.parse()?;
                if rename("Probe", &rule.value()).is_none() {
                    return Err(Error::new(rule.span(), "TagFirst: unknown rename_all rule"));
                }
                rename_all = Some(rule.value());
            } else if meta.path.is_ident("rename_all_fields") {
                rename_all_fields = Some(meta.value()?.parse::<LitStr>()?);
            } else if meta.path.is_ident("deny_unknown_fields") {
                deny_unknown_fields = true;
            } else {
                return Err(meta.error("TagFirst does not support this serde attribute on an enum"));
            }
            Ok(())
        })?;
    }
    let tag = tag.ok_or_else(|| Error::new_spanned(&input.ident, "TagFirst needs #[serde(tag = \"...\")]"))?;
    Ok(Container { tag, rename_all, rename_all_fields, deny_unknown_fields })
}

/// A variant's name under serde's `rename_all` rule.
fn rename(name: &str, rule: &str) -> Option<String> {
    let snake = || {
        let mut s = String::new();
        for (i, c) in name.char_indices() {
            if c.is_uppercase() && i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        }
        s
    };
    Some(match rule {
        "lowercase" => name.to_ascii_lowercase(),
        "UPPERCASE" => name.to_ascii_uppercase(),
        "PascalCase" => name.to_owned(),
        "camelCase" => name[..1].to_ascii_lowercase() + &name[1..],
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake().to_ascii_uppercase().replace('_', "-"),
        _ => return None,
    })
}

fn variants(input: &DeriveInput, c: &Container) -> syn::Result<Vec<Variant>> {
    let Data::Enum(data) = &input.data else {
        return Err(Error::new_spanned(&input.ident, "TagFirst is for internally tagged enums"));
    };
    if !input.generics.params.is_empty() {
        return Err(Error::new_spanned(&input.generics, "TagFirst does not support generic enums"));
    }
    let mut out = Vec::new();
    for v in &data.variants {
        let base = v.ident.to_string();
        let mut name = match &c.rename_all {
            Some(rule) => rename(&base, rule).unwrap_or(base),
            None => base,
        };
        let mut aliases = Vec::new();
        for attr in serde_attrs(&v.attrs) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    name = meta.value()?.parse::<LitStr>()?.value();
                } else if meta.path.is_ident("alias") {
                    aliases.push(meta.value()?.parse::<LitStr>()?.value());
                } else {
                    return Err(meta.error("TagFirst does not support this serde attribute on a variant"));
                }
                Ok(())
            })?;
        }
        let fields = match &v.fields {
            Fields::Unit => None,
            Fields::Named(named) => Some(
                named
                    .named
                    .iter()
                    .map(|f| Field {
                        ident: f.ident.clone().expect("a named field"),
                        ty: f.ty.clone(),
                        serde: serde_attrs(&f.attrs).cloned().collect(),
                    })
                    .collect(),
            ),
            Fields::Unnamed(_) => {
                return Err(Error::new_spanned(v, "TagFirst supports struct and unit variants only"));
            }
        };
        let mut names = vec![name];
        names.extend(aliases);
        out.push(Variant { ident: v.ident.clone(), names, fields });
    }
    Ok(out)
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let c = container(input)?;
    let vs = variants(input, &c)?;
    let name = &input.ident;
    let vis = &input.vis;
    let tag = c.tag.as_str();
    let expecting = format!("internally tagged enum {name}");

    let vidents: Vec<&Ident> = vs.iter().map(|v| &v.ident).collect();
    // serde's list of the names it expects: each variant's name and aliases, sorted.
    let all_names: Vec<&str> =
        vs.iter().flat_map(|v| v.names.iter().map(String::as_str).collect::<std::collections::BTreeSet<_>>()).collect();
    let name_arms = vs.iter().map(|v| {
        let names = &v.names;
        let ident = &v.ident;
        quote! { #(#names)|* => ::core::result::Result::Ok(__Variant::#ident), }
    });
    let index_arms = vs.iter().enumerate().map(|(i, v)| {
        let i = i as u64;
        let ident = &v.ident;
        quote! { #i => ::core::result::Result::Ok(__Variant::#ident), }
    });
    let index_expecting = format!("variant index 0 <= i < {}", vs.len());

    let deny = c.deny_unknown_fields.then(|| quote! { #[serde(deny_unknown_fields)] });
    let fields_rule = c.rename_all_fields.as_ref().map(|r| quote! { #[serde(rename_all = #r)] });

    let hidden = vs.iter().filter_map(|v| {
        let fields = v.fields.as_ref()?;
        let hname = format_ident!("__TagFirst_{}", v.ident);
        let struct_expecting = format!("struct variant {name}::{}", v.ident);
        let fs = fields.iter().map(|f| {
            let (attrs, ident, ty) = (&f.serde, &f.ident, &f.ty);
            quote! { #(#attrs)* #ident: #ty }
        });
        Some(quote! {
            #[derive(::serde::Deserialize)]
            #[allow(non_camel_case_types)]
            #[serde(expecting = #struct_expecting)]
            #deny
            #fields_rule
            struct #hname {
                #(#fs,)*
            }
        })
    });

    // The enum's value from `__h`, the variant's hidden struct.
    let build = |v: &Variant| {
        let ident = &v.ident;
        match &v.fields {
            Some(fields) => {
                let fids = fields.iter().map(|f| &f.ident);
                quote! { #name::#ident { #(#fids: __h.#fids),* } }
            }
            None => quote! { #name::#ident },
        }
    };

    let map_arms = vs.iter().map(|v| {
        let ident = &v.ident;
        let value = build(v);
        match &v.fields {
            Some(_) => {
                let hname = format_ident!("__TagFirst_{}", v.ident);
                quote! {
                    __Variant::#ident => {
                        let __h = <#hname as ::serde::Deserialize>::deserialize(
                            ::serde::de::value::MapAccessDeserializer::new(__SkipTag { map: __map, allowed: 0 }),
                        )?;
                        ::core::result::Result::Ok(#value)
                    }
                }
            }
            None => quote! {
                __Variant::#ident => {
                    while let ::core::option::Option::Some(__IsTag(__is_tag)) = __map.next_key::<__IsTag>()? {
                        if __is_tag {
                            return ::core::result::Result::Err(::serde::de::Error::duplicate_field(#tag));
                        }
                        __map.next_value::<::serde::de::IgnoredAny>()?;
                    }
                    ::core::result::Result::Ok(#value)
                }
            },
        }
    });

    let object_arms = vs.iter().map(|v| {
        let ident = &v.ident;
        let value = build(v);
        match &v.fields {
            Some(_) => {
                let hname = format_ident!("__TagFirst_{}", v.ident);
                quote! {
                    __Variant::#ident => {
                        let __h = <#hname as ::serde::Deserialize>::deserialize(
                            ::serde_json::Value::Object(__object),
                        )?;
                        ::core::result::Result::Ok(#value)
                    }
                }
            }
            None => quote! { __Variant::#ident => ::core::result::Result::Ok(#value), },
        }
    });

    let seq_arms = vs.iter().map(|v| {
        let ident = &v.ident;
        let value = build(v);
        let read = match &v.fields {
            Some(_) => {
                let hname = format_ident!("__TagFirst_{}", v.ident);
                quote! {
                    let __h = <#hname as ::serde::Deserialize>::deserialize(
                        ::serde::de::value::SeqAccessDeserializer::new(__seq),
                    )?;
                }
            }
            None => quote! {
                let mut __n = 0usize;
                while __seq.next_element::<::serde::de::IgnoredAny>()?.is_some() {
                    __n += 1;
                }
                if __n > 0 {
                    return ::core::result::Result::Err(::serde::de::Error::invalid_length(__n, &"0 elements in sequence"));
                }
            },
        };
        quote! { __Variant::#ident => { #read ::core::result::Result::Ok(#value) } }
    });

    let text_arms = vs.iter().map(|v| {
        let ident = &v.ident;
        let value = build(v);
        match &v.fields {
            Some(_) => {
                let hname = format_ident!("__TagFirst_{}", v.ident);
                quote! {
                    __Variant::#ident => {
                        let __h = ::serde::Deserializer::deserialize_map(
                            &mut __de,
                            __Rest::<#hname>(::core::marker::PhantomData),
                        )?;
                        #value
                    }
                }
            }
            None => quote! {
                __Variant::#ident => {
                    ::serde::Deserializer::deserialize_map(
                        &mut __de,
                        __Rest::<::serde::de::IgnoredAny>(::core::marker::PhantomData),
                    )?;
                    #value
                }
            },
        }
    });

    Ok(quote! {
        #[allow(non_camel_case_types, non_snake_case, clippy::all)]
        const _: () = {
            use ::serde::de::{Error as _, MapAccess as _};

            /// A key as the map gives it: borrowed from the text when it can be.
            enum __Key<'de> {
                Borrowed(&'de str),
                Owned(::std::string::String),
            }

            struct __KeyVisitor;

            impl<'de> ::serde::de::Visitor<'de> for __KeyVisitor {
                type Value = __Key<'de>;
                fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                    __f.write_str("a field name")
                }
                fn visit_borrowed_str<__E: ::serde::de::Error>(self, __v: &'de str) -> ::core::result::Result<__Key<'de>, __E> {
                    ::core::result::Result::Ok(__Key::Borrowed(__v))
                }
                fn visit_str<__E: ::serde::de::Error>(self, __v: &str) -> ::core::result::Result<__Key<'de>, __E> {
                    ::core::result::Result::Ok(__Key::Owned(__v.to_owned()))
                }
                fn visit_string<__E: ::serde::de::Error>(self, __v: ::std::string::String) -> ::core::result::Result<__Key<'de>, __E> {
                    ::core::result::Result::Ok(__Key::Owned(__v))
                }
            }

            impl<'de> ::serde::Deserialize<'de> for __Key<'de> {
                fn deserialize<__D: ::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                    __d.deserialize_identifier(__KeyVisitor)
                }
            }

            /// A map without its tag key: the rest of a map whose tag was
            /// read (`allowed` 0: another tag key is refused as a duplicate),
            /// or a whole map whose tag the first pass read (`allowed` 1: it
            /// is skipped once).
            struct __SkipTag<__A> {
                map: __A,
                allowed: u8,
            }

            impl<'de, __A: ::serde::de::MapAccess<'de>> ::serde::de::MapAccess<'de> for __SkipTag<__A> {
                type Error = __A::Error;
                fn next_key_seed<__K: ::serde::de::DeserializeSeed<'de>>(
                    &mut self,
                    __seed: __K,
                ) -> ::core::result::Result<::core::option::Option<__K::Value>, __A::Error> {
                    loop {
                        let __key = match self.map.next_key::<__Key<'de>>()? {
                            ::core::option::Option::None => return ::core::result::Result::Ok(::core::option::Option::None),
                            ::core::option::Option::Some(__key) => __key,
                        };
                        let __is_tag = match &__key {
                            __Key::Borrowed(__k) => *__k == #tag,
                            __Key::Owned(__k) => __k == #tag,
                        };
                        if !__is_tag {
                            return match __key {
                                __Key::Borrowed(__k) => __seed.deserialize(
                                    ::serde::de::value::BorrowedStrDeserializer::<__A::Error>::new(__k),
                                ),
                                __Key::Owned(__k) => __seed.deserialize(
                                    ::serde::de::value::StringDeserializer::<__A::Error>::new(__k),
                                ),
                            }
                            .map(::core::option::Option::Some);
                        }
                        if self.allowed == 0 {
                            return ::core::result::Result::Err(__A::Error::duplicate_field(#tag));
                        }
                        self.allowed -= 1;
                        // Read as serde reads a tag, so a malformed one is refused alike.
                        self.map.next_value::<__Variant>()?;
                    }
                }
                fn next_value_seed<__V: ::serde::de::DeserializeSeed<'de>>(
                    &mut self,
                    __seed: __V,
                ) -> ::core::result::Result<__V::Value, __A::Error> {
                    self.map.next_value_seed(__seed)
                }
            }

            /// Reads a variant's hidden struct from a whole map, its tag key skipped.
            struct __Rest<__T>(::core::marker::PhantomData<__T>);

            impl<'de, __T: ::serde::Deserialize<'de>> ::serde::de::Visitor<'de> for __Rest<__T> {
                type Value = __T;
                fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                    __f.write_str(#expecting)
                }
                fn visit_map<__A: ::serde::de::MapAccess<'de>>(self, __map: __A) -> ::core::result::Result<__T, __A::Error> {
                    __T::deserialize(::serde::de::value::MapAccessDeserializer::new(__SkipTag { map: __map, allowed: 1 }))
                }
            }

            #(#hidden)*

            #[derive(Clone, Copy)]
            enum __Variant { #(#vidents),* }

            const __VARIANTS: &[&str] = &[#(#all_names),*];

            struct __VariantVisitor;

            impl<'de> ::serde::de::Visitor<'de> for __VariantVisitor {
                type Value = __Variant;
                fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                    __f.write_str("variant identifier")
                }
                fn visit_str<__E: ::serde::de::Error>(self, __v: &str) -> ::core::result::Result<__Variant, __E> {
                    match __v {
                        #(#name_arms)*
                        _ => ::core::result::Result::Err(__E::unknown_variant(__v, __VARIANTS)),
                    }
                }
                fn visit_u64<__E: ::serde::de::Error>(self, __v: u64) -> ::core::result::Result<__Variant, __E> {
                    match __v {
                        #(#index_arms)*
                        _ => ::core::result::Result::Err(__E::invalid_value(
                            ::serde::de::Unexpected::Unsigned(__v),
                            &#index_expecting,
                        )),
                    }
                }
            }

            impl<'de> ::serde::Deserialize<'de> for __Variant {
                fn deserialize<__D: ::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                    __d.deserialize_identifier(__VariantVisitor)
                }
            }

            /// A key, told apart only as the tag or not (nothing kept).
            struct __IsTag(bool);

            struct __IsTagVisitor;

            impl<'de> ::serde::de::Visitor<'de> for __IsTagVisitor {
                type Value = __IsTag;
                fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                    __f.write_str("a field name")
                }
                fn visit_str<__E: ::serde::de::Error>(self, __v: &str) -> ::core::result::Result<__IsTag, __E> {
                    ::core::result::Result::Ok(__IsTag(__v == #tag))
                }
            }

            impl<'de> ::serde::Deserialize<'de> for __IsTag {
                fn deserialize<__D: ::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                    __d.deserialize_identifier(__IsTagVisitor)
                }
            }

            /// The object's first key: the tag, or another (kept, for the slow path).
            enum __FirstKey {
                Tag,
                Other(::std::string::String),
            }

            struct __FirstKeyVisitor;

            impl<'de> ::serde::de::Visitor<'de> for __FirstKeyVisitor {
                type Value = __FirstKey;
                fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                    __f.write_str("a field name")
                }
                fn visit_str<__E: ::serde::de::Error>(self, __v: &str) -> ::core::result::Result<__FirstKey, __E> {
                    ::core::result::Result::Ok(if __v == #tag {
                        __FirstKey::Tag
                    } else {
                        __FirstKey::Other(__v.to_owned())
                    })
                }
            }

            impl<'de> ::serde::Deserialize<'de> for __FirstKey {
                fn deserialize<__D: ::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                    __d.deserialize_identifier(__FirstKeyVisitor)
                }
            }

            /// The enum from an object whose tag was not first.
            fn __from_object(
                __variant: __Variant,
                __object: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            ) -> ::serde_json::Result<#name> {
                match __variant {
                    #(#object_arms)*
                }
            }

            struct __Visitor;

            impl<'de> ::serde::de::Visitor<'de> for __Visitor {
                type Value = #name;
                fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                    __f.write_str(#expecting)
                }
                fn visit_map<__A: ::serde::de::MapAccess<'de>>(self, mut __map: __A) -> ::core::result::Result<#name, __A::Error> {
                    match __map.next_key::<__FirstKey>()? {
                        ::core::option::Option::None => ::core::result::Result::Err(__A::Error::missing_field(#tag)),
                        ::core::option::Option::Some(__FirstKey::Tag) => {
                            let __variant: __Variant = __map.next_value()?;
                            match __variant {
                                #(#map_arms)*
                            }
                        }
                        ::core::option::Option::Some(__FirstKey::Other(__key)) => {
                            // The tag's value is read as serde reads it; the
                            // other values are held until the variant is known.
                            let mut __variant: ::core::option::Option<__Variant> = ::core::option::Option::None;
                            let mut __object = ::serde_json::Map::new();
                            let __value: ::serde_json::Value = __map.next_value()?;
                            __object.insert(__key, __value);
                            while let ::core::option::Option::Some(__key) = __map.next_key::<::std::string::String>()? {
                                if __key == #tag {
                                    if __variant.is_some() {
                                        return ::core::result::Result::Err(__A::Error::duplicate_field(#tag));
                                    }
                                    __variant = ::core::option::Option::Some(__map.next_value()?);
                                    continue;
                                }
                                let __value: ::serde_json::Value = __map.next_value()?;
                                if __object.contains_key(&__key) {
                                    return ::core::result::Result::Err(__A::Error::custom(
                                        ::core::format_args!("duplicate field `{}`", __key),
                                    ));
                                }
                                __object.insert(__key, __value);
                            }
                            let __variant = __variant.ok_or_else(|| __A::Error::missing_field(#tag))?;
                            __from_object(__variant, __object).map_err(__A::Error::custom)
                        }
                    }
                }
                /// serde's other form: a sequence whose first element is the tag.
                fn visit_seq<__S: ::serde::de::SeqAccess<'de>>(self, mut __seq: __S) -> ::core::result::Result<#name, __S::Error> {
                    let __variant: __Variant = match __seq.next_element()? {
                        ::core::option::Option::Some(__v) => __v,
                        ::core::option::Option::None => {
                            return ::core::result::Result::Err(::serde::de::Error::missing_field(#tag));
                        }
                    };
                    match __variant {
                        #(#seq_arms)*
                    }
                }
            }

            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<__D: ::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                    __d.deserialize_any(__Visitor)
                }
            }

            /// The first pass over JSON text: the tag's variant, every other
            /// value skipped unread.
            struct __FindTag;

            impl<'de> ::serde::de::Visitor<'de> for __FindTag {
                /// `None` for the sequence form.
                type Value = ::core::option::Option<__Variant>;
                fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                    __f.write_str(#expecting)
                }
                fn visit_seq<__S: ::serde::de::SeqAccess<'de>>(self, mut __seq: __S) -> ::core::result::Result<Self::Value, __S::Error> {
                    while __seq.next_element::<::serde::de::IgnoredAny>()?.is_some() {}
                    ::core::result::Result::Ok(::core::option::Option::None)
                }
                fn visit_map<__A: ::serde::de::MapAccess<'de>>(self, mut __map: __A) -> ::core::result::Result<Self::Value, __A::Error> {
                    let mut __found = ::core::option::Option::None;
                    while let ::core::option::Option::Some(__IsTag(__is_tag)) = __map.next_key::<__IsTag>()? {
                        if !__is_tag {
                            __map.next_value::<::serde::de::IgnoredAny>()?;
                        } else if __found.is_some() {
                            return ::core::result::Result::Err(__A::Error::duplicate_field(#tag));
                        } else {
                            __found = ::core::option::Option::Some(__map.next_value::<__Variant>()?);
                        }
                    }
                    __found.map(::core::option::Option::Some).ok_or_else(|| __A::Error::missing_field(#tag))
                }
            }

            impl #name {
                /// Reads JSON text in two passes, nothing buffered: the tag
                /// first (the other values skipped unread), then the variant's
                /// fields from the whole text (derived by `TagFirst`).
                #[allow(dead_code)]
                #vis fn from_json_text(__text: &str) -> ::serde_json::Result<#name> {
                    // Canonical text whose tag is its last key (keys sorted: most
                    // events) ends `,"tag":"Name"}`: read from the end, nothing
                    // scanned. Else a first pass over the whole text finds it.
                    // The second pass reads every byte either way.
                    if let ::core::option::Option::Some(__name) = __last_tag(__text) {
                        if let ::core::result::Result::Ok(__variant) =
                            ::serde::de::Visitor::visit_str::<::serde_json::Error>(__VariantVisitor, __name)
                        {
                            return __read_variant(__text, __variant);
                        }
                    }
                    let __variant = match ::serde::Deserializer::deserialize_any(
                        &mut ::serde_json::Deserializer::from_str(__text),
                        __FindTag,
                    )? {
                        ::core::option::Option::Some(__variant) => __variant,
                        ::core::option::Option::None => return ::serde_json::from_str(__text),
                    };
                    __read_variant(__text, __variant)
                }
            }

            /// The name in `text` if it ends with its last key, the tag, and a
            /// plain string: `,"tag":"Name"}` or `{"tag":"Name"}`. In JSON text
            /// a `"` inside a string is always escaped, so with no backslash in
            /// the name its opening quote is the one found, and the `"tag"` before
            /// it, after `,` or `{`, is the key of the top-level object's last
            /// member. Text that is not JSON is refused by the second pass.
            fn __last_tag(__text: &str) -> ::core::option::Option<&str> {
                let __body = __text.strip_suffix("\"}")?;
                let __open = __body.rfind('"')?;
                let __name = &__body[__open + 1..];
                if __name.contains('\\') {
                    return ::core::option::Option::None;
                }
                let __key = __body[..__open].strip_suffix(::core::concat!("\"", #tag, "\":"))?;
                match __key.as_bytes().last() {
                    ::core::option::Option::Some(b',' | b'{') => ::core::option::Option::Some(__name),
                    _ => ::core::option::Option::None,
                }
            }

            /// The second pass: the variant's fields from the whole text, its
            /// one tag key skipped.
            fn __read_variant(__text: &str, __variant: __Variant) -> ::serde_json::Result<#name> {
                let mut __de = ::serde_json::Deserializer::from_str(__text);
                let __value = match __variant {
                    #(#text_arms)*
                };
                __de.end()?;
                ::core::result::Result::Ok(__value)
            }
        };
    })
}
